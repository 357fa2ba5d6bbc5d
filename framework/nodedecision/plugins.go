package nodedecision

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/framework/fakenodeplugin"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// configFile is the plugin host configuration the specs write.
const configFile = "admission-conformance.json"

// Plugins are fake plugins installed on one node's plugin host for one case.
type Plugins struct {
	Host      nodes.PluginHost
	installed map[string]*fakenodeplugin.Installed
}

// InstallPlugins installs plugins on node's plugin host and writes the host
// configuration listing them in the given order. The configuration and the
// plugins are removed after the case (configuration first, so the host stops
// calling them before they go).
func InstallPlugins(ctx context.Context, f *harness.Framework, node string, plugins ...fakenodeplugin.Plugin) (*Plugins, error) {
	hosts, ok := f.Env.Cluster.(nodes.PluginHosts)
	if !ok {
		return nil, fmt.Errorf("the %s cluster does not let the harness configure node plugin hosts", f.Env.Cluster.Provider())
	}
	host, ok := hosts.NodePluginHost(node)
	if !ok {
		return nil, fmt.Errorf("node %s has no plugin host", node)
	}
	p := &Plugins{Host: host, installed: map[string]*fakenodeplugin.Installed{}}
	cfg := &nodeadmission.PluginConfig{Name: f.Namespace, Version: "0.1"}
	for _, plugin := range plugins {
		inst, err := fakenodeplugin.Install(ctx, fakenodeplugin.Location{PluginDir: host.PluginDir, StateDir: host.StateDir, Exec: host.Exec}, plugin, io.Discard,
			f.Bounds.ObjectState.Duration, f.Bounds.PollInterval.Duration)
		if err != nil {
			return nil, err
		}
		ginkgo.DeferCleanup(inst.Remove)
		p.installed[plugin.Name] = inst
		cfg.Plugins = append(cfg.Plugins, &nodeadmission.AdmissionPlugin{Name: plugin.Name, Type: plugin.Type})
	}
	data, err := nodeadmission.EncodeConfig(cfg)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(host.ConfigDir, configFile), data, 0o600); err != nil {
		return nil, err
	}
	ginkgo.DeferCleanup(removeConfig, host.ConfigDir)
	return p, nil
}

func removeConfig(dir string) error {
	if err := os.Remove(filepath.Join(dir, configFile)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Timeout is how long the node's host waits for each plugin.
func (p *Plugins) Timeout() time.Duration { return p.Host.Timeout }

// Invocations returns the calls plugin got about pod (matched by UID), in
// the order they arrived, with the pods the plugin saw decoded.
func (p *Plugins) Invocations(plugin string, pod *corev1.Pod) ([]Invocation, error) {
	inst, ok := p.installed[plugin]
	if !ok {
		return nil, fmt.Errorf("no plugin %s installed", plugin)
	}
	all, err := inst.Journal()
	if err != nil {
		return nil, err
	}
	var out []Invocation
	for _, inv := range all {
		var seen corev1.Pod
		if err := json.Unmarshal(inv.Pod, &seen); err != nil {
			return nil, fmt.Errorf("plugin %s was sent something that is not a pod: %w", plugin, err)
		}
		if seen.UID == pod.UID {
			out = append(out, Invocation{Invocation: inv, Seen: &seen})
		}
	}
	return out, nil
}

// Invocation is one call a fake plugin got, with the pod it saw decoded.
type Invocation struct {
	fakenodeplugin.Invocation
	Seen *corev1.Pod
}
