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
	count int
	spec  nodes.Spec
}

// WithNodes starts n hollow kubelets (real kubelet admission code over a
// fake runtime), each a child process of this binary, shaped by spec (see
// nodes.DefaultSpec). The binary must call nodes.RunIfChild first in main
// and TestMain.
func WithNodes(n int, spec nodes.Spec) Option {
	return optionFunc(func(o *settings) { o.nodes = nodeSettings{count: n, spec: spec} })
}

// nodeStopGrace is how long a kubelet may take to exit after SIGTERM before
// it is killed; it has nothing to save.
const nodeStopGrace = 5 * time.Second

// startNodes starts the nodes once the control plane is up: they need the
// controller manager's ServiceAccounts for their warm-up pods.
func (c *Cluster) startNodes(ctx context.Context, o settings, files pkiFiles) error {
	if o.nodes.count == 0 {
		return nil
	}
	set, err := nodes.Start(ctx, nodes.Options{
		Count: o.nodes.count, Spec: o.nodes.spec, Dir: c.dir,
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
		out = append(out, cluster.Node{Name: name, Capabilities: c.nodeCapabilities()})
	}
	return out
}

// nodeCapabilities are what every node of this cluster can show.
func (c *Cluster) nodeCapabilities() features.Set {
	if len(c.nodes.Names()) == 0 {
		return features.Set{}
	}
	s := features.NewSet(features.NodeAdmission)
	if c.nodes.HasPluginHosts() {
		s[features.NodeAdmissionPlugins] = struct{}{}
	}
	return s
}

// NodePluginHost implements nodes.PluginHosts.
func (c *Cluster) NodePluginHost(node string) (nodes.PluginHost, bool) {
	return c.nodes.NodePluginHost(node)
}

var _ nodes.PluginHosts = (*Cluster)(nil)
