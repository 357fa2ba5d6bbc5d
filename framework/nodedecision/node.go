package nodedecision

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// NodeWith returns the node of the cluster declaring feature that the case
// uses: the first, or in a parallel run the one its spec holds (Env.NodeSlot).
func NodeWith(f *harness.Framework, feature features.Name) (string, error) {
	var with []string
	for _, n := range f.Env.Cluster.Nodes() {
		if n.Capabilities.Has(feature) {
			with = append(with, n.Name)
		}
	}
	if len(with) == 0 {
		return "", fmt.Errorf("no node of the cluster declares %s (%d nodes)", feature, len(f.Env.Cluster.Nodes()))
	}
	if f.Env.NodeSlot >= len(with) {
		return "", fmt.Errorf("this worker holds node %d, but only %d node(s) declare %s", f.Env.NodeSlot, len(with), feature)
	}
	return with[f.Env.NodeSlot], nil
}
