package initializers

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakeinitializer"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

var initializerFailTimeout = spec.Spec{
	ShortName: "InitializerFailTimeout",
	Suite:     "initializers",
	Description: "A Fail initializer that does not finish fails the pod after its timeout T, within [T, T + slack], as " +
		"the reference implementation documents: phase Failed, reason InitializerTimeout, condition Initialized=False, a " +
		"Warning event; the remaining gates stay, so the pod is never bound and later initializers never get a turn.",
	Features: []features.Name{features.ReferenceInitializers},
	Profile:  spec.Reference,
	Seed: "002 Specification: if Fail is set, apiserver returns timeout error if the timeout is reached (deviation: the " +
		"create has returned by then, so the pod fails instead)",
	Isolation: usesInitializers,
}

var _ = harness.Describe(initializerFailTimeout, func(f *harness.Framework) {
	ginkgo.It("fails the pod when a Fail initializer times out", func(ctx ginkgo.SpecContext) {
		stuck, next := gate(f, "stuck"), gate(f, "next")
		// Created fail-open, then upgraded to Fail, as the seed requires.
		_, err := createConfiguration(ctx, f, newConfiguration(f, "a",
			initializer(stuck, v1alpha1.Ignore, slowTimeout), initializer(next, v1alpha1.Ignore, 30)), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = updateConfiguration(ctx, f, configurationName(f, "a"), func(c *v1alpha1.InitializerConfiguration) {
			c.Initializers[0].FailurePolicy = ptr.To(v1alpha1.Fail)
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a configuration may be updated to Fail")
		gomega.Expect(waitPolicy(ctx, f, stuck, v1alpha1.Fail)).To(gomega.Succeed())
		_, err = startFake(ctx, f, stuck, fakeinitializer.Behaviour{Never: true})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		nextFake, err := startFake(ctx, f, next, fakeinitializer.Behaviour{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		timeout := slowTimeout * time.Second
		sent := time.Now()
		p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "subject"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		failed, seen, err := watchPod(ctx, f, p.Name, p.ResourceVersion, timeout+f.Bounds.TimingSlack.Duration+f.Bounds.ObjectState.Duration,
			func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the pod must fail when its Fail initializer times out")
		expectTimedOut(f, "fail-timeout", seen.Sub(sent), timeout)

		gomega.Expect(failed.Status.Reason).To(gomega.Equal(v1alpha1.ReasonTimeout))
		gomega.Expect(failed.Status.Message).To(gomega.ContainSubstring(stuck))
		gomega.Expect(failed.Status.Conditions).To(gomega.ContainElement(gomega.SatisfyAll(
			gomega.HaveField("Type", corev1.PodConditionType(v1alpha1.InitializedCondition)),
			gomega.HaveField("Status", corev1.ConditionFalse),
			gomega.HaveField("Reason", v1alpha1.ReasonTimeout))))
		gomega.Expect(gateNames(failed)).To(gomega.Equal([]string{stuck, next}), "the failed pod keeps its gates")
		gomega.Expect(failed.Spec.NodeName).To(gomega.BeEmpty())
		expectWarningEvent(ctx, f, p.Name, v1alpha1.ReasonTimeout, stuck)
		gomega.Expect(nextFake.Removals()).To(gomega.BeEmpty(), "the initializer after a failed one got a turn")
	})
})

// waitPolicy waits (a set-up wait) until new pods get the initializer with
// the failure policy.
func waitPolicy(ctx context.Context, f *harness.Framework, name string, policy v1alpha1.FailurePolicyType) error {
	return wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.WebhookReady.Duration, true, func(ctx context.Context) (bool, error) {
		p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return false, err
		}
		list, err := v1alpha1.AssignedTo(p)
		if err != nil {
			return false, err
		}
		for _, a := range list {
			if a.Name == name {
				return a.FailurePolicy == policy, nil
			}
		}
		return false, nil
	})
}
