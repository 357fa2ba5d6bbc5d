package nodes

import (
	"errors"
	"sort"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/nodes/hollow"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
)

// Set is the running nodes of one cluster.
type Set struct {
	nodes []*node
}

type node struct {
	config hollow.Config
	proc   *childproc.Process
}

// PluginHost is where a node's KEP-2823 plugin host looks, and how long it
// waits for each plugin.
type PluginHost struct {
	// ConfigDir holds the plugin configuration file.
	ConfigDir string
	// PluginDir holds the plugins (executables, port files, sockets).
	PluginDir string
	// StateDir is free for the harness's fake plugins (their journals).
	StateDir string
	// Timeout bounds each plugin call.
	Timeout time.Duration
	// Exec, if set, runs the fake plugins' servers in the node's container
	// (a kind node); nil runs them on this host (hollow nodes).
	Exec *cluster.NodeExec
}

// PluginHosts is implemented by clusters whose nodes host KEP-2823 plugins
// the harness can configure (the embedded cluster).
type PluginHosts interface {
	// NodePluginHost returns the plugin host of the named node.
	NodePluginHost(node string) (PluginHost, bool)
}

// Names returns the nodes' names, sorted.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	names := make([]string, len(s.nodes))
	for i, n := range s.nodes {
		names[i] = n.config.Name
	}
	sort.Strings(names)
	return names
}

// HasPluginHost reports whether the named node hosts plugins.
func (s *Set) HasPluginHost(name string) bool {
	_, ok := s.NodePluginHost(name)
	return ok
}

// NodePluginHost implements PluginHosts.
func (s *Set) NodePluginHost(name string) (PluginHost, bool) {
	if s == nil {
		return PluginHost{}, false
	}
	for _, n := range s.nodes {
		if n.config.Name == name && n.config.Plugins != nil {
			p := n.config.Plugins
			return PluginHost{ConfigDir: p.ConfigDir, PluginDir: p.PluginDir, StateDir: stateDir(n.config.Dir), Timeout: p.Timeout.Duration}, true
		}
	}
	return PluginHost{}, false
}

// Stop kills every node and waits until each is reaped. It is safe on a
// partly started set and safe to call twice.
func (s *Set) Stop(grace time.Duration) error {
	if s == nil {
		return nil
	}
	errs := make(chan error, len(s.nodes))
	for _, n := range s.nodes {
		go func() {
			if n.proc == nil {
				errs <- nil
				return
			}
			errs <- n.proc.Stop(grace)
		}()
	}
	var all []error
	for range s.nodes {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}
