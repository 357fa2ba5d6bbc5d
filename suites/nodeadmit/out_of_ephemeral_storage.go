package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsOutOfEphemeralStorage = spec.Spec{
	ShortName: "KubeletRejectsOutOfEphemeralStorage",
	Suite:     "nodeadmit",
	Description: "A pod bound to a node that asks for more ephemeral storage than the node can allocate is rejected by the kubelet " +
		"with Reason OutOfephemeral-storage.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: bindsPodsToANode,
}

var _ = describe(rejectsOutOfEphemeralStorage, func(f *harness.Framework) {
	ginkgo.It("fails the pod with Reason OutOfephemeral-storage and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		pod := subject(f, node, "subject")
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("64Ti")}
		expectNodeRejects(ctx, f, node, pod, rejection{reason: "OutOfephemeral-storage"})
	})
})
