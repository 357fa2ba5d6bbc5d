package nodeadmit

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsOutOfPods = spec.Spec{
	ShortName:   "KubeletRejectsOutOfPods",
	Suite:       "nodeadmit",
	Description: "A pod bound to a node that already runs as many pods as it can hold is rejected by the kubelet with Reason OutOfpods.",
	Features:    builtInFeatures,
	Profile:     spec.Extended,
	Seed:        seedBuiltIn,
	Isolation:   fillsTheNode,
}

var _ = describe(rejectsOutOfPods, func(f *harness.Framework) {
	ginkgo.It("fails the first pod beyond the node's capacity with Reason OutOfpods and leaves it in place", func(ctx ginkgo.SpecContext) {
		n := hollowNode(ctx, f, fillingKeepsPodsOff)
		node := n.Name
		expectControlAdmitted(ctx, f, nodedecision.Pod(f, node, "control"))
		capacity := n.Status.Allocatable.Pods().Value()
		if capacity > 64 {
			ginkgo.Skip(notSupported(fmt.Sprintf("node %s holds %d pods; filling it would take too long", node, capacity)))
		}
		// Fill the node until it rejects: pods left by earlier cases may
		// hold some of its places, so the count is not known in advance.
		var rejected *nodes.Decision
		for i := int64(0); i <= capacity && rejected == nil; i++ {
			d, err := nodedecision.Decide(ctx, f, subject(f, node, fmt.Sprintf("filler-%d", i)))
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			if !d.Admitted {
				rejected = &d
			}
		}
		gomega.Expect(rejected).NotTo(gomega.BeNil(), "node %s admitted %d pods besides the control pod; its capacity is %d", node, capacity+1, capacity)
		// The node must have been full: it ran at least its capacity of pods.
		onNode, err := f.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var running int64
		for _, p := range onNode.Items {
			if p.Status.Phase == corev1.PodRunning || p.Status.Phase == corev1.PodPending {
				running++
			}
		}
		gomega.Expect(running).To(gomega.BeNumerically(">=", capacity), "node %s rejected a pod while running %d of %d", node, running, capacity)
		expectRejected(ctx, f, *rejected, rejection{reason: "OutOfpods"})
	})
})
