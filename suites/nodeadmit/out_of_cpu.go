package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsOutOfCPU = spec.Spec{
	ShortName:   "KubeletRejectsOutOfCPU",
	Suite:       "nodeadmit",
	Description: "A pod bound to a node that asks for more CPU than the node can allocate is rejected by the kubelet with Reason OutOfcpu.",
	Features:    builtInFeatures,
	Profile:     spec.Extended,
	Seed:        seedBuiltIn,
	Isolation:   bindsPodsToANode,
}

var _ = describe(rejectsOutOfCPU, func(f *harness.Framework) {
	ginkgo.It("fails the pod with Reason OutOfcpu and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		pod := subject(f, node, "subject")
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}
		expectNodeRejects(ctx, f, node, pod, rejection{reason: "OutOfcpu"})
	})
})
