package initializers

import (
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

var initializerReadRepair = spec.Spec{
	ShortName: "InitializerReadRepair",
	Suite:     "initializers",
	Description: "A pod whose head initializer is still there when the pod is the global initializer timeout old " +
		"has that initializer removed by read repair, although the initializer's own, longer timeout has not run " +
		"out (as after a restart of whatever timed it); a Warning event with reason InitializerGlobalTimeout says so.",
	Features: []features.Name{features.ReferenceInitializers},
	Profile:  spec.Reference,
	Seed: "002 Implementation of fail open initializers: if the apiserver crashes, we fall back to a read repair " +
		"mechanism: if a global initializer timeout (e.g., 10 mins) has reached, the first initializer is removed " +
		"(deviation: a periodic consistent LIST finds the pods, not a GET)",
	Isolation: usesInitializers,
}

var _ = harness.Describe(initializerReadRepair, func(f *harness.Framework) {
	ginkgo.It("removes the head initializer of a pod older than the global timeout, before its own timeout", func(ctx ginkgo.SpecContext) {
		global := f.Bounds.InitializerGlobalTimeout.Duration
		// Its own timeout runs out well after the latest a repair may come,
		// so only read repair can remove it in time.
		own := int32(3*global/time.Second) + 1
		slow := gate(f, "slow")
		fake := stuckIgnoreInitializer(ctx, f, slow, own)

		// creationTimestamp has whole seconds: a repair may come a second
		// late, plus one sweep interval.
		upper := global + time.Second + f.Bounds.InitializerRepairInterval.Duration + f.Bounds.TimingSlack.Duration
		sent := time.Now() // the pod cannot be older than this
		p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "subject"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(gateNames(p)).To(gomega.Equal([]string{slow}))
		_, seen, err := watchPod(ctx, f, p.Name, p.ResourceVersion, upper+f.Bounds.ObjectState.Duration, gateGone(slow))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "read repair must remove the head initializer of a pod older than the global timeout %s", global)
		age := seen.Sub(sent)
		m := within(f, "read-repair-age", age, global, upper, map[string]string{"globalTimeout": global.String()})
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "read repair removed the initializer when the pod was %s old, want between %s and %s", age, global, upper)

		gomega.Expect(fake.Removals()).To(gomega.BeEmpty(), "the fake removed nothing: read repair did")
		expectWarningEvent(ctx, f, p.Name, v1alpha1.ReasonGlobalTimeout, slow)
	})
})
