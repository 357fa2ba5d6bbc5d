package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsPodOSNotSupported = spec.Spec{
	ShortName:   "KubeletRejectsPodOSNotSupported",
	Suite:       "nodeadmit",
	Description: "A pod bound to a node whose spec.os names another operating system is rejected by the kubelet with Reason PodOSNotSupported.",
	Features:    builtInFeatures,
	Profile:     spec.Extended,
	Seed:        seedBuiltIn,
	Isolation:   bindsPodsToANode,
}

var _ = describe(rejectsPodOSNotSupported, func(f *harness.Framework) {
	ginkgo.It("fails a pod for another OS with Reason PodOSNotSupported and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		pod := subject(f, node, "subject")
		pod.Spec.OS = &corev1.PodOS{Name: otherOS(nodeOS(ctx, f, node))}
		expectNodeRejects(ctx, f, node, pod, rejection{reason: "PodOSNotSupported"})
	})
})

// otherOS is an operating system the node does not run.
func otherOS(os string) corev1.OSName {
	if os == string(corev1.Windows) {
		return corev1.Linux
	}
	return corev1.Windows
}
