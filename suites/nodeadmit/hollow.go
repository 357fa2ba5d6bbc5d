package nodeadmit

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// Why a case that fills or taints a node runs only on a node set aside for
// the harness (nodes.HollowLabel: the embedded cluster's hollow nodes, the
// kind provider's own node): on any other node it would keep the cluster's
// own pods and other cases' pods off it while it runs, or evict them.
const (
	fillingKeepsPodsOff  = "filling it would keep other pods off it"
	taintingEvictsOthers = "a NoExecute taint would evict every pod on it that does not tolerate the taint"
)

// hollowNode is the node set aside for the harness that the built-in cases
// use: the worker's own node (builtInNode) when it is one, as on the
// embedded cluster, else the first such node of the cluster's. Where there
// is none, the case is not supported, saying why (one of the reasons
// above), before it touches a node.
func hollowNode(ctx context.Context, f *harness.Framework, why string) *corev1.Node {
	name := builtInNode(f)
	candidates := []string{name}
	for _, n := range f.Env.Cluster.Nodes() {
		if n.Name != name && n.Capabilities.Has(features.NodeAdmission) {
			candidates = append(candidates, n.Name)
		}
	}
	for _, c := range candidates {
		n, err := f.Client.CoreV1().Nodes().Get(ctx, c, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		if n.Labels[nodes.HollowLabel] == "true" {
			return n
		}
	}
	ginkgo.Skip(notSupported("no node of the cluster's is set aside for the harness (label " + nodes.HollowLabel +
		"), and on node " + name + " (or any other) " + why))
	return nil
}
