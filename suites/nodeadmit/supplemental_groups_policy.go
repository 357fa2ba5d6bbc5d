package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsSupplementalGroupsPolicy = spec.Spec{
	ShortName: "KubeletRejectsSupplementalGroupsPolicyNotSupported",
	Suite:     "nodeadmit",
	Description: "A pod asking for supplementalGroupsPolicy Strict, bound to a node whose runtime does not declare support " +
		"for it (status.features.supplementalGroupsPolicy), is rejected by the kubelet with Reason SupplementalGroupsPolicyNotSupported, " +
		"while a pod asking for Merge is admitted.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: bindsPodsToANode,
}

var _ = describe(rejectsSupplementalGroupsPolicy, func(f *harness.Framework) {
	ginkgo.It("fails a Strict pod with Reason SupplementalGroupsPolicyNotSupported and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		if n.Status.Features != nil && ptr.Deref(n.Status.Features.SupplementalGroupsPolicy, false) {
			ginkgo.Skip(notSupported("node " + node + " declares supplementalGroupsPolicy support, so a Strict pod is admissible there"))
		}
		pod := subject(f, node, "subject")
		pod.Spec.SecurityContext = &corev1.PodSecurityContext{
			SupplementalGroupsPolicy: ptr.To(corev1.SupplementalGroupsPolicyStrict),
		}
		// The control asks for Merge, which every node supports.
		control := nodedecision.Pod(f, node, "control")
		control.Spec.SecurityContext = &corev1.PodSecurityContext{
			SupplementalGroupsPolicy: ptr.To(corev1.SupplementalGroupsPolicyMerge),
		}
		expectNodeRejectsAfter(ctx, f, control, pod, rejection{
			reason:  "SupplementalGroupsPolicyNotSupported",
			message: "SupplementalGroupsPolicy=Strict is not supported in this node",
		})
	})
})
