package initializers

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var schedulingGateHoldsPod = spec.Spec{
	ShortName: "SchedulingGateHoldsPod",
	Suite:     "initializers",
	Description: "A pod with a scheduling gate is not bound and shows PodScheduled=False, reason SchedulingGated, for the " +
		"whole hold window, while the same pod without the gate is bound.",
	Features: []features.Name{features.Scheduler, features.NodeAdmission},
	Profile:  spec.Extended,
	Seed: "002 Background: the initializer admission controller sets default initializers for resources newly created, " +
		"which hold them until initialized (today: scheduling gates, GA in 1.30)",
	Isolation: usesInitializersAndNodes,
}

var _ = harness.Describe(schedulingGateHoldsPod, func(f *harness.Framework) {
	ginkgo.It("holds the gated pod and binds its ungated twin", func(ctx ginkgo.SpecContext) {
		pods := f.Client.CoreV1().Pods(f.Namespace)
		gated, err := pods.Create(ctx, newPod(f.Namespace, "gated", gate(f, "hold")), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		twin, err := pods.Create(ctx, newPod(f.Namespace, "twin"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		// The scheduler is at work: the twin is bound.
		_, _, err = watchPod(ctx, f, twin.Name, twin.ResourceVersion, f.Bounds.ObjectState.Duration, bound)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the ungated twin must be bound, or holding proves nothing")
		// The apiserver says at creation why the pod waits.
		gomega.Expect(schedulingGated(gated)).To(gomega.BeTrue(), "created gated pod's conditions: %+v", gated.Status.Conditions)

		gomega.Consistently(ctx, func(g gomega.Gomega) {
			p, err := pods.Get(ctx, gated.Name, metav1.GetOptions{})
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(p.Spec.NodeName).To(gomega.BeEmpty(), "a gated pod was bound")
			g.Expect(schedulingGated(p)).To(gomega.BeTrue(), "conditions %+v", p.Status.Conditions)
		}).WithTimeout(f.Bounds.SchedulingGateHold.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
	})
})
