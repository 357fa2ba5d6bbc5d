package initializers

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakeinitializer"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

var initializerIgnoreTimeout = spec.Spec{
	ShortName: "InitializerIgnoreTimeout",
	Suite:     "initializers",
	Description: "An Ignore initializer that does not finish is removed after its timeout T, counted from when it " +
		"reached the head of the list, within [T, T + slack]; a Warning event says so and the next initializer gets its turn.",
	Features: []features.Name{features.ReferenceInitializers},
	Profile:  spec.Reference,
	Seed: "002 Handling fail-open initializers: if Ignore is set, the initializer is removed from the initializers " +
		"list of an object if the timeout is reached; a timer per initializer",
	Isolation: usesInitializers,
}

// slowTimeout is the timeout of the initializers that never finish.
const slowTimeout = 2

var _ = harness.Describe(initializerIgnoreTimeout, func(f *harness.Framework) {
	ginkgo.It("removes an initializer at the head from creation after its timeout", func(ctx ginkgo.SpecContext) {
		slow := gate(f, "slow")
		fake := stuckIgnoreInitializer(ctx, f, slow, slowTimeout)

		timeout := slowTimeout * time.Second
		sent := time.Now() // the initializer cannot be at the head before the create is sent
		p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "subject"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(gateNames(p)).To(gomega.Equal([]string{slow}))
		_, seen, err := watchPod(ctx, f, p.Name, p.ResourceVersion, timeout+f.Bounds.TimingSlack.Duration+f.Bounds.ObjectState.Duration, gateGone(slow))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the timed-out Ignore initializer must be removed")
		expectTimedOut(f, "ignore-timeout-from-creation", seen.Sub(sent), timeout)

		gomega.Expect(fake.Observations(p.Name)).NotTo(gomega.BeEmpty(), "the fake saw the pod")
		gomega.Expect(fake.Removals()).To(gomega.BeEmpty(), "the fake removed nothing: the timeout did")
		expectWarningEvent(ctx, f, p.Name, v1alpha1.ReasonTimeoutIgnored, slow)
	})

	ginkgo.It("counts the timeout from when the initializer reached the head, not from creation", func(ctx ginkgo.SpecContext) {
		quick, slow := gate(f, "quick"), gate(f, "slow")
		_, err := createConfiguration(ctx, f, newConfiguration(f, "a",
			initializer(quick, v1alpha1.Ignore, 30), initializer(slow, v1alpha1.Ignore, slowTimeout)), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(waitAssigned(ctx, f, []string{quick, slow})).To(gomega.Succeed())
		// quick finishes after half of slow's timeout: measured from creation,
		// slow would time out half a timeout early.
		quickFake, err := startFake(ctx, f, quick, fakeinitializer.Behaviour{Delay: slowTimeout * time.Second / 2})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = startFake(ctx, f, slow, fakeinitializer.Behaviour{Never: true})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		timeout := slowTimeout * time.Second
		p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "subject"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(gateNames(p)).To(gomega.Equal([]string{quick, slow}))
		_, seen, err := watchPod(ctx, f, p.Name, p.ResourceVersion, 2*timeout+f.Bounds.TimingSlack.Duration+f.Bounds.ObjectState.Duration, gateGone(slow))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the timed-out Ignore initializer must be removed")
		waitCtx, cancel := context.WithTimeout(ctx, f.Bounds.ObjectState.Duration)
		defer cancel()
		r, err := quickFake.WaitRemoval(waitCtx, p.Name)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(r.Err).NotTo(gomega.HaveOccurred())
		// slow reached the head when quick's removal was stored, which is
		// after it was sent.
		expectTimedOut(f, "ignore-timeout-from-head", seen.Sub(r.Sent), timeout)
	})
})

// expectTimedOut records d as a timeout measurement and asserts it lies in
// [timeout, timeout + slack].
func expectTimedOut(f *harness.Framework, name string, d, timeout time.Duration) {
	upper := timeout + f.Bounds.TimingSlack.Duration
	m := within(f, name, d, timeout, upper, map[string]string{"timeout": timeout.String()})
	gomega.ExpectWithOffset(1, m.Within()).To(gomega.BeTrue(), "removed %s after its turn began, want between %s and %s", d, timeout, upper)
}
