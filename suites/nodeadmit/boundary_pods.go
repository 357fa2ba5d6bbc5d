package nodeadmit

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var admitsUpToPodCapacity = spec.Spec{
	ShortName: "KubeletAdmitsUpToPodCapacity",
	Suite:     "nodeadmit",
	Description: "A node admits pods until its non-terminal pods number its allocatable pods, rejects the next with Reason " +
		"OutOfpods and a message giving used and capacity, and gives a deleted pod's place to the next pod, not to a rejected one.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: fillsTheNode,
}

var _ = describe(admitsUpToPodCapacity, func(f *harness.Framework) {
	ginkgo.It("admits pods up to the node's pod capacity, rejects the next with Reason OutOfpods, and counts neither rejected nor deleted pods", func(ctx ginkgo.SpecContext) {
		node := hollowNode(ctx, f, fillingKeepsPodsOff).Name
		expectControlAdmitted(ctx, f, nodedecision.Pod(f, node, "control"))
		placed := placedOn(ctx, f, node, corev1.ResourcePods)
		capacity, used, left := placed.Allocatable(corev1.ResourcePods), placed.Used(corev1.ResourcePods), placed.Remaining(corev1.ResourcePods)
		if capacity > 64 {
			ginkgo.Skip(notSupported(fmt.Sprintf("node %s holds %d pods; filling it would take too long", node, capacity)))
		}
		ginkgo.GinkgoWriter.Printf("node %s: %d allocatable pods, %d non-terminal, %d left\n", node, capacity, used, left)

		// The largest number that fits: every place left.
		var fillers []*corev1.Pod
		for i := range left {
			d := expectAdmitted(ctx, f, subject(f, node, fmt.Sprintf("filler-%d", i)))
			fillers = append(fillers, d.Pod)
		}
		// The smallest that does not: one more.
		full := rejection{reason: "OutOfpods", message: insufficient(corev1.ResourcePods, 1, capacity, capacity)}
		expectRejectedAs(ctx, f, subject(f, node, "over"), full)

		if left == 0 {
			ginkgo.Fail(fmt.Sprintf("node %s had no place left for the case's pods: nothing to delete", node))
		}
		// A deleted pod's place goes to the next pod once it has left the
		// API (grace period 0: the kubelet sees the deletion before the
		// next pod, on the same watch); the rejected pod holds none.
		expectDeleted(ctx, f, fillers[0], ptr.To[int64](0))
		expectAdmitted(ctx, f, subject(f, node, "after-delete"))
		// Full again: the rejected pods are still not counted (used is
		// the capacity, not more).
		expectRejectedAs(ctx, f, subject(f, node, "over-again"), full)
	})
})
