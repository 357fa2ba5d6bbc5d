package ordering

import (
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var validatingWebhooksInParallel = spec.Spec{
	ShortName: "ValidatingWebhooksInParallel",
	Suite:     "ordering",
	Description: "Two validating webhooks (two configurations) that each take 1 s are called at once: the request takes " +
		"about 1 s (at most 1 s plus timingSlack), not 2 s.",
	Features: []features.Name{features.ValidatingWebhook, features.ParallelValidatingWebhooks},
	Profile:  spec.Extended,
	Seed: "000 Requirements for extensible admission: ordering does not matter for validators " +
		"(validators are unordered, so they may run in parallel)",
	Manifests: []string{"ordering/configmap.yaml"},
	Isolation: spec.Isolation{Serial: true, Quiet: []quiet.Kind{quiet.WebhookConfigurations},
		Reason: "measures parallelism by timing: the request must take less than the time of two slow validators, and other work on the apiserver adds to it " +
			"(on the propagation plane, where the other specs only probe their own configurations, holding the webhook window is enough)"},
}

// validatorDelay is how long each validating webhook takes to answer: the
// stimulus of this spec (the "each take 1 s"), not a bound.
const validatorDelay = time.Second

var _ = harness.Describe(validatingWebhooksInParallel, func(f *harness.Framework) {
	ginkgo.It("calls them at once", func(ctx ginkgo.SpecContext) {
		slow := fakewebhook.Behaviour{Action: fakewebhook.Allow, Delay: validatorDelay}
		// The webhook timeout must leave room for the delay.
		timeout := ptr.To(int32(validatorDelay.Seconds()) + 5)
		va, err := f.RegisterValidating(ctx, "validate-a", harness.Hook{Name: "slow", Behaviour: slow, TimeoutSeconds: timeout})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		vb, err := f.RegisterValidating(ctx, "validate-b", harness.Hook{Name: "slow", Behaviour: slow, TimeoutSeconds: timeout})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		nonce := newNonce()
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		start := time.Now()
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		took := time.Since(start)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		lower, upper := validatorDelay, validatorDelay+f.Bounds.TimingSlack.Duration
		f.Record(results.Measurement{Name: "create-with-two-slow-validators", Unit: "s", Value: took.Seconds(),
			Lower: ptr.To(lower.Seconds()), Bound: ptr.To(upper.Seconds())})

		a, b := va.Hooks["slow"].Path, vb.Hooks["slow"].Path
		all, err := requestCalls(ctx, f, nonce, a, b)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ca, cb := all.onPath(a), all.onPath(b)
		gomega.Expect(ca).To(gomega.HaveLen(1), "validating webhook a must be called once")
		gomega.Expect(cb).To(gomega.HaveLen(1), "validating webhook b must be called once")
		gomega.Expect(ca[0].Answered() && cb[0].Answered()).To(gomega.BeTrue(), "both must have answered")
		overlap := minTime(ca[0].RespondedAt, cb[0].RespondedAt).Sub(maxTime(ca[0].ReceivedAt, cb[0].ReceivedAt))
		f.Record(results.Measurement{Name: "validator-calls-overlap", Unit: "s", Value: overlap.Seconds()})

		gomega.Expect(took).To(gomega.BeNumerically(">=", lower), "the request cannot be faster than one validator's %s", validatorDelay)
		gomega.Expect(took).To(gomega.BeNumerically("<=", upper),
			"two %s validators must be called at once: the request took %s, more than %s (%s + timingSlack); called one after the other it takes %s",
			validatorDelay, took, upper, validatorDelay, 2*validatorDelay)
		gomega.Expect(overlap).To(gomega.BeNumerically(">", 0), "each validator must be called before the other answered")
	})
})

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
