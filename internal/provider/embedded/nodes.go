package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
)

// nodeSettings say which hollow kubelets to start after the control plane.
type nodeSettings struct {
	specs []nodeset.Spec
	// background: Start returns without waiting for them (see
	// WithNodesInBackground).
	background bool
}

// WithNodes starts n hollow kubelets (real kubelet admission code over a
// fake runtime), each a child process of this binary, all shaped by spec
// (see nodeset.DefaultSpec). The binary must call nodeset.RunIfChild first in
// main and TestMain.
func WithNodes(n int, spec nodeset.Spec) Option {
	specs := make([]nodeset.Spec, n)
	for i := range specs {
		specs[i] = spec
	}
	return WithNodeSpecs(specs...)
}

// WithNodeSpecs starts one hollow kubelet per spec, node-<i> shaped by
// specs[i] (its extended resources, its plugin host), as WithNodes does.
func WithNodeSpecs(specs ...nodeset.Spec) Option {
	return optionFunc(func(o *settings) { o.nodes.specs = specs })
}

// WithNodesInBackground makes Start return once the control plane is up,
// while the nodes start: until NodesStarted is closed the cluster has no
// nodes (and declares none of their features), then it has them, or
// NodesErr says why not. For a caller with work that needs no node (run
// --parallel), which would otherwise wait ~11 s for their start and
// warm-up.
func WithNodesInBackground() Option {
	return optionFunc(func(o *settings) { o.nodes.background = true })
}

// backgroundNodes is the state of nodes starting after Start returned.
type backgroundNodes struct {
	done   chan struct{} // closed when they are up, or failed
	err    error         // set before done closes
	cancel context.CancelFunc
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
	if o.nodes.background {
		// Start's context ends when Start returns: the nodes get their own,
		// which Stop cancels.
		bgCtx, cancel := context.WithTimeout(context.Background(), 2*o.startTimeout)
		bg := &backgroundNodes{done: make(chan struct{}), cancel: cancel}
		c.background = bg
		go func() {
			defer close(bg.done)
			defer cancel()
			bg.err = c.startNodesNow(bgCtx, o, files)
			if bg.err != nil {
				bg.err = fmt.Errorf("embedded: start nodes: %w", bg.err)
			}
		}()
		return nil
	}
	return c.startNodesNow(ctx, o, files)
}

// NodesStarted is closed once the nodes are up or failed to start; at once
// unless the cluster was started WithNodesInBackground.
func (c *Cluster) NodesStarted() <-chan struct{} {
	if c.background == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return c.background.done
}

// StopStartingNodes ends a start-up of the nodes in the background (see
// WithNodesInBackground) under way: it rolls back what it started, and
// NodesErr then wraps context.Canceled. For a caller interrupted while the
// nodes start, which stops the cluster later; Stop does it too.
func (c *Cluster) StopStartingNodes() {
	if bg := c.background; bg != nil {
		bg.cancel()
	}
}

// NodesErr says why the nodes did not start, once NodesStarted is closed.
func (c *Cluster) NodesErr() error {
	if c.background == nil {
		return nil
	}
	select {
	case <-c.background.done:
		return c.background.err
	default:
		return nil
	}
}

var _ cluster.NodesStarting = (*Cluster)(nil)

func (c *Cluster) startNodesNow(ctx context.Context, o settings, files pkiFiles) error {
	set, err := nodeset.Start(ctx, nodeset.Options{
		Specs: o.nodes.specs, Dir: c.dir,
		Server: c.config.Host, CACertFile: files.caCert, ClientCA: files.ca,
		Admin: c.config, Log: o.componentLog, Logger: o.logger,
		ReadyTimeout: o.startTimeout, WarmUpTimeout: o.startTimeout, Poll: o.poll,
	})
	if err != nil {
		return err
	}
	c.nodesMu.Lock()
	c.nodes = set
	c.nodesMu.Unlock()
	return nil
}

// nodeSet is the running nodes (nil until they are up).
func (c *Cluster) nodeSet() *nodeset.Set {
	c.nodesMu.Lock()
	defer c.nodesMu.Unlock()
	return c.nodes
}

// stopNodes kills the kubelets: before the control plane, since a connected
// kubelet makes the apiserver's teardown wait a minute.
func (c *Cluster) stopNodes() error {
	if bg := c.background; bg != nil {
		bg.cancel() // a start under way rolls back
		<-bg.done
	}
	if err := c.nodeSet().Stop(nodeStopGrace); err != nil {
		return fmt.Errorf("embedded: stop nodes: %w", err)
	}
	return nil
}

// Nodes implements cluster.Cluster.
func (c *Cluster) Nodes() []cluster.Node {
	var out []cluster.Node
	for _, name := range c.nodeSet().Names() {
		out = append(out, cluster.Node{Name: name, Capabilities: c.nodeFeatures(name)})
	}
	return out
}

// nodeFeatures are what one node can show.
func (c *Cluster) nodeFeatures(name string) features.Set {
	s := features.NewSet(features.NodeAdmission)
	if c.nodeSet().HasPluginHost(name) {
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
	return c.nodeSet().NodePluginHost(node)
}

var _ nodes.PluginHosts = (*Cluster)(nil)
