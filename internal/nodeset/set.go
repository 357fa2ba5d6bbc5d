package nodeset

import (
	"errors"
	"sort"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/nodeset/hollow"
)

// Set is the running nodes of one cluster.
type Set struct {
	nodes []*node
}

type node struct {
	config hollow.Config
	proc   *childproc.Process
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

// NodePluginHost implements nodes.PluginHosts.
func (s *Set) NodePluginHost(name string) (nodes.PluginHost, bool) {
	if s == nil {
		return nodes.PluginHost{}, false
	}
	for _, n := range s.nodes {
		if n.config.Name == name && n.config.Plugins != nil {
			p := n.config.Plugins
			return nodes.PluginHost{ConfigDir: p.ConfigDir, PluginDir: p.PluginDir, StateDir: stateDir(n.config.Dir), Timeout: p.Timeout.Duration}, true
		}
	}
	return nodes.PluginHost{}, false
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
