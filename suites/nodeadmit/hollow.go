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
// embedded cluster, else the first such node among the cluster's nodes
// with NodeAdmission. Where there is none, the case is not supported,
// saying why (one of the reasons above), before it touches a node.
func hollowNode(ctx context.Context, f *harness.Framework, why string) *corev1.Node {
	name := builtInNode(f)
	list, err := f.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: nodes.HollowLabel + "=true"})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	labelled := map[string]*corev1.Node{}
	for i := range list.Items {
		labelled[list.Items[i].Name] = &list.Items[i]
	}
	if n, ok := labelled[name]; ok {
		return n
	}
	for _, c := range f.Env.Cluster.Nodes() {
		if n, ok := labelled[c.Name]; ok && c.Capabilities.Has(features.NodeAdmission) {
			return n
		}
	}
	ginkgo.Skip(notSupported("no node of the cluster's is set aside for the harness (label " + nodes.HollowLabel +
		"=true), and on node " + name + " (or any other) " + why))
	return nil
}
