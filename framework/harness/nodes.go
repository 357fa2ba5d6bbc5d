package harness

import (
	"context"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
)

// WaitForNodes returns once the cluster's nodes are up when they start
// after the control plane (cluster.NodesStarting), and makes their features
// supported. Until then the environment has no nodes: only work that needs
// none may use it.
func (e *Env) WaitForNodes(ctx context.Context) error {
	n, ok := e.Cluster.(cluster.NodesStarting)
	if !ok {
		return nil
	}
	select {
	case <-n.NodesStarted():
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := n.NodesErr(); err != nil {
		return err
	}
	e.Supported = e.Supported.Union(e.Cluster.Capabilities())
	return nil
}
