package nodeadmission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// PluginType says how the host talks to a plugin (seed 004).
type PluginType string

const (
	// PluginTypeShell is an executable: pod on stdin, AdmitResult on stdout.
	PluginTypeShell PluginType = "shell"
	// PluginTypeGRPC is a gRPC server on a local port.
	PluginTypeGRPC PluginType = "grpc"
	// PluginTypeSocket is a server on a Unix socket.
	PluginTypeSocket PluginType = "socket"
)

// PluginTypes lists the types in documentation order.
var PluginTypes = []PluginType{PluginTypeShell, PluginTypeGRPC, PluginTypeSocket}

// PluginConfig is the configuration file, with the seed's schema.
type PluginConfig struct {
	Name    string             `json:"name,omitempty"`
	Version string             `json:"version,omitempty"`
	Plugins []*AdmissionPlugin `json:"plugins"`
}

// AdmissionPlugin is one configured plugin.
type AdmissionPlugin struct {
	Name string     `json:"name"`
	Type PluginType `json:"type"`
}

// Validate rejects configurations the host cannot act on: unknown types,
// names that are not plain file names, and duplicates.
func (c *PluginConfig) Validate() error {
	seen := map[string]bool{}
	for i, p := range c.Plugins {
		if p == nil {
			return fmt.Errorf("plugins[%d] is null", i)
		}
		if p.Name == "" || p.Name == "." || p.Name == ".." || strings.ContainsAny(p.Name, `/\`) {
			return fmt.Errorf("plugins[%d]: name %q is not a plain file name", i, p.Name)
		}
		if seen[p.Name] {
			return fmt.Errorf("plugins[%d]: plugin %q listed twice", i, p.Name)
		}
		seen[p.Name] = true
		switch p.Type {
		case PluginTypeShell, PluginTypeGRPC, PluginTypeSocket:
		default:
			return fmt.Errorf("plugin %q: unknown type %q (use shell, grpc or socket)", p.Name, p.Type)
		}
	}
	return nil
}

// errNoConfig means the configuration directory holds no configuration file.
var errNoConfig = errors.New("no configuration file")

// LoadConfig reads the lexically first *.json or *.conf file in dir. It
// returns errNoConfig when there is none, so the caller can tell "no plugins"
// from "broken configuration".
func LoadConfig(dir string) (*PluginConfig, string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", errNoConfig
	}
	if err != nil {
		return nil, "", err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && (strings.HasSuffix(e.Name(), ".json") || strings.HasSuffix(e.Name(), ".conf")) {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, "", errNoConfig
	}
	sort.Strings(names)
	path := filepath.Join(dir, names[0])
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, path, err
	}
	var cfg PluginConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, path, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, path, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return &cfg, path, nil
}

// EncodeConfig validates cfg and returns it as a file of the host's
// configuration directory holds it. Its writer replaces the file in one
// step (a temporary file renamed over the target), so a host reading
// concurrently sees the old or the new configuration, never half of one.
func EncodeConfig(cfg *PluginConfig) ([]byte, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return json.MarshalIndent(cfg, "", "  ")
}
