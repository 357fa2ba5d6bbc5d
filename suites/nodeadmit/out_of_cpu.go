package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsOutOfCPU = spec.Spec{
	ShortName: "KubeletRejectsOutOfCPU",
	Suite:     "nodeadmit",
	Description: "A pod bound to a node that asks for more CPU than the node can allocate is rejected by the kubelet with Reason OutOfcpu; " +
		"a critical pod asking for more than preempting every other pod could free is rejected with Reason UnexpectedAdmissionError.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: bindsPodsToANode,
}

var _ = describe(rejectsOutOfCPU, func(f *harness.Framework) {
	ginkgo.It("fails the pod with Reason OutOfcpu and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		pod := subject(f, node, "subject")
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}
		expectNodeRejects(ctx, f, node, pod, rejection{reason: "OutOfcpu"})
	})

	ginkgo.It("fails a critical pod asking for more CPU than the node has at all with Reason UnexpectedAdmissionError: no preemption frees enough", func(ctx ginkgo.SpecContext) {
		// The kubelet admits a critical pod short of resources by preempting
		// lower-priority pods on its node; 64 CPUs are more than the node
		// has, whatever runs there, so preemption fails and rejects the pod.
		node := builtInNode(f)
		pod := subject(f, node, "critical")
		pod.Spec.PriorityClassName = "system-node-critical"
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}
		expectNodeRejects(ctx, f, node, pod, rejection{reason: "UnexpectedAdmissionError",
			messageContains: "Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods " +
				"to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: "})
	})
})
