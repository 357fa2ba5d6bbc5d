package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsAppArmor = spec.Spec{
	ShortName: "KubeletRejectsAppArmorWithoutSupport",
	Suite:     "nodeadmit",
	Description: "A pod asking for an AppArmor profile, bound to a node that says it cannot enforce AppArmor, is rejected by the " +
		"kubelet with Reason AppArmor.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: bindsPodsToANode,
}

var _ = describe(rejectsAppArmor, func(f *harness.Framework) {
	ginkgo.It("fails the pod with Reason AppArmor and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// Only a node that cannot enforce AppArmor rejects such pods, and
		// only the node can tell which it is.
		if n.Labels[nodes.AppArmorLabel] != "unavailable" {
			ginkgo.Skip(notSupported("node " + node + " does not say it lacks AppArmor (label " + nodes.AppArmorLabel + "=" +
				n.Labels[nodes.AppArmorLabel] + "), so it has no reason to reject"))
		}
		pod := subject(f, node, "subject")
		pod.Spec.SecurityContext = &corev1.PodSecurityContext{AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}}
		expectNodeRejects(ctx, f, node, pod, rejection{reason: "AppArmor"})
	})
})
