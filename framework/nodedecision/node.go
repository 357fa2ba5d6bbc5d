package nodedecision

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// NodeWith returns the first node of the cluster that declares feature.
func NodeWith(f *harness.Framework, feature features.Name) (string, error) {
	for _, n := range f.Env.Cluster.Nodes() {
		if n.Capabilities.Has(feature) {
			return n.Name, nil
		}
	}
	return "", fmt.Errorf("no node of the cluster declares %s (%d nodes)", feature, len(f.Env.Cluster.Nodes()))
}
