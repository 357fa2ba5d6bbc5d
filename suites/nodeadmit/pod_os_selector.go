package nodeadmit

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsPodOSSelectorMismatch = spec.Spec{
	ShortName: "KubeletRejectsPodOSSelectorMismatch",
	Suite:     "nodeadmit",
	Description: "A pod bound to a node whose own kubernetes.io/os label names another operating system than the node's is " +
		"rejected by the kubelet with Reason PodOSSelectorNodeLabelDoesNotMatch, while a pod labelled with the node's own is admitted.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: bindsPodsToANode,
}

var _ = describe(rejectsPodOSSelectorMismatch, func(f *harness.Framework) {
	ginkgo.It("fails the pod with Reason PodOSSelectorNodeLabelDoesNotMatch and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		os := nodeOS(ctx, f, node)
		// The control is labelled with the node's own operating system.
		control := nodedecision.Pod(f, node, "control")
		control.Labels[corev1.LabelOSStable] = os
		pod := subject(f, node, "subject")
		pod.Labels[corev1.LabelOSStable] = string(otherOS(os))
		expectNodeRejectsAfter(ctx, f, control, pod, rejection{reason: "PodOSSelectorNodeLabelDoesNotMatch"})
	})
})

// nodeOS is the operating system the node says it runs.
func nodeOS(ctx context.Context, f *harness.Framework, node string) string {
	n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	os := n.Labels[corev1.LabelOSStable]
	gomega.Expect(os).NotTo(gomega.BeEmpty(), "node %s has no %s label", node, corev1.LabelOSStable)
	return os
}
