package nodeadmission

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// HostConfigDir is where a kubelet built with this host (the kind node
// image's, hack/kind/cmd/kubelet) finds HostConfigFile, and where it writes
// ReadyFile once the host is in its admit chain. Whoever sets the node up
// mounts a directory of its own there.
const HostConfigDir = "/etc/admission-conformance/node-admission"

// The files in HostConfigDir.
const (
	HostConfigFile = "host.json"
	ReadyFile      = "kubelet.json"
)

// HostConfig says where a node's host looks and how long it waits. A
// kubelet reads it for every admission, so a change applies to the next pod.
type HostConfig struct {
	ConfigDir string `json:"configDir"`
	PluginDir string `json:"pluginDir"`
	// Timeout is a Go duration ("3s"); empty means DefaultTimeout.
	Timeout string `json:"timeout,omitempty"`
	// The host's deliberate faults (Host), for the harness's own tests.
	FailOpen         bool `json:"failOpen,omitempty"`
	RejectLate       bool `json:"rejectLate,omitempty"`
	IgnoreRejections bool `json:"ignoreRejections,omitempty"`
}

// Host is the host this configuration describes.
func (c HostConfig) Host() (*Host, error) {
	h := &Host{ConfigDir: c.ConfigDir, PluginDir: c.PluginDir, FailOpen: c.FailOpen,
		RejectLate: c.RejectLate, IgnoreRejections: c.IgnoreRejections}
	if c.Timeout != "" {
		d, err := time.ParseDuration(c.Timeout)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("timeout %q is not a positive Go duration", c.Timeout)
		}
		h.Timeout = d
	}
	return h, nil
}

// EncodeHostConfig is c as dir's HostConfigFile holds it. Its writer
// replaces the file in one step (a temporary file renamed into place): a
// kubelet may be reading it.
func EncodeHostConfig(c HostConfig) ([]byte, error) {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ErrNoHostConfig is ReadHostConfig's error when dir has no HostConfigFile.
var ErrNoHostConfig = errors.New("no node admission host configuration")

// ReadHostConfig reads dir's HostConfigFile.
func ReadHostConfig(dir string) (HostConfig, error) {
	var c HostConfig
	path := filepath.Join(dir, HostConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, ErrNoHostConfig
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if c.ConfigDir == "" || c.PluginDir == "" {
		return c, fmt.Errorf("%s: configDir and pluginDir are required", path)
	}
	return c, nil
}

// Ready is what a kubelet hosting plugins writes to ReadyFile when it
// starts: which node it is, so the directory's owner can tell which of its
// nodes runs a host.
type Ready struct {
	Node string `json:"node"`
	// Version is the kubelet's Kubernetes version.
	Version string `json:"version"`
}

// EncodeReady is r as dir's ReadyFile holds it; its writer replaces the
// file in one step, like the host configuration's.
func EncodeReady(r Ready) ([]byte, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ReadReady reads dir's ReadyFile; os.ErrNotExist until a kubelet wrote it.
func ReadReady(dir string) (Ready, error) {
	var r Ready
	data, err := os.ReadFile(filepath.Join(dir, ReadyFile))
	if err != nil {
		return r, err
	}
	return r, json.Unmarshal(data, &r)
}
