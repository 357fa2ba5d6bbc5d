package embedded

import "github.com/admission-conformance/admission-conformance/framework/cluster"

var _ cluster.Faults = (*Cluster)(nil)

// DeadNodes implements cluster.Faults: the hollow kubelets whose process
// exited before the cluster stopped them.
func (c *Cluster) DeadNodes() map[string]error { return c.nodes.Dead() }
