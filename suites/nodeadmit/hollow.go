package nodeadmit

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// Why a case that fills or taints a node runs on hollow nodes only: on a
// real node (kind's) it would keep the cluster's own pods and other cases'
// pods off it while it runs, or evict them.
const (
	fillingKeepsPodsOff  = "filling it would keep other pods off it"
	taintingEvictsOthers = "a NoExecute taint would evict every pod on it that does not tolerate the taint"
)

// hollowNode is the node the built-in cases use, when it is one of the
// harness's hollow nodes; any other node reports the case not supported,
// saying why (one of the reasons above), before the case touches it.
func hollowNode(ctx context.Context, f *harness.Framework, why string) *corev1.Node {
	name := builtInNode(f)
	n, err := f.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	if n.Labels[nodes.HollowLabel] != "true" {
		ginkgo.Skip(notSupported("node " + name + " is not one of the harness's hollow nodes, and " + why))
	}
	return n
}
