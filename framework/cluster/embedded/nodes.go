package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// nodeSettings say which hollow kubelets to start after the control plane.
type nodeSettings struct {
	specs []nodes.Spec
}

// WithNodes starts n hollow kubelets (real kubelet admission code over a
// fake runtime), each a child process of this binary, all shaped by spec
// (see nodes.DefaultSpec). The binary must call nodes.RunIfChild first in
// main and TestMain.
func WithNodes(n int, spec nodes.Spec) Option {
	specs := make([]nodes.Spec, n)
	for i := range specs {
		specs[i] = spec
	}
	return WithNodeSpecs(specs...)
}

// WithNodeSpecs starts one hollow kubelet per spec, node-<i> shaped by
// specs[i] (its extended resources, its plugin host), as WithNodes does.
func WithNodeSpecs(specs ...nodes.Spec) Option {
	return optionFunc(func(o *settings) { o.nodes = nodeSettings{specs: specs} })
}

// nodeStopGrace is how long a kubelet may take to exit after SIGTERM before
// it is killed; it has nothing to save.
const nodeStopGrace = 5 * time.Second

// startNodes starts the nodes once the control plane is up: they need the
// controller manager's ServiceAccounts for their warm-up pods.
func (c *Cluster) startNodes(ctx context.Context, o settings, files pkiFiles) error {
	if len(o.nodes.specs) == 0 {
		return nil
	}
	set, err := nodes.Start(ctx, nodes.Options{
		Specs: o.nodes.specs, Dir: c.dir,
		Server: c.config.Host, CACertFile: files.caCert, ClientCA: files.ca,
		Admin: c.config, Log: o.componentLog, Logger: o.logger,
		ReadyTimeout: o.startTimeout, WarmUpTimeout: o.startTimeout, Poll: o.poll,
	})
	if err != nil {
		return err
	}
	c.nodes = set
	return nil
}

// stopNodes kills the kubelets: before the control plane, since a connected
// kubelet makes the apiserver's teardown wait a minute.
func (c *Cluster) stopNodes() error {
	if err := c.nodes.Stop(nodeStopGrace); err != nil {
		return fmt.Errorf("embedded: stop nodes: %w", err)
	}
	return nil
}

// Nodes implements cluster.Cluster.
func (c *Cluster) Nodes() []cluster.Node {
	var out []cluster.Node
	for _, name := range c.nodes.Names() {
		out = append(out, cluster.Node{Name: name, Capabilities: c.nodeFeatures(name)})
	}
	return out
}

// nodeFeatures are what one node can show.
func (c *Cluster) nodeFeatures(name string) features.Set {
	s := features.NewSet(features.NodeAdmission)
	if c.nodes.HasPluginHost(name) {
		s[features.NodeAdmissionPlugins] = struct{}{}
	}
	return s
}

// nodeCapabilities are what the cluster can show through its nodes: a
// feature any node has (specs pick a node that has what they need).
func (c *Cluster) nodeCapabilities() features.Set {
	s := features.Set{}
	for _, n := range c.Nodes() {
		s = s.Union(n.Capabilities)
	}
	return s
}

// NodePluginHost implements nodes.PluginHosts.
func (c *Cluster) NodePluginHost(node string) (nodes.PluginHost, bool) {
	return c.nodes.NodePluginHost(node)
}

var _ nodes.PluginHosts = (*Cluster)(nil)
