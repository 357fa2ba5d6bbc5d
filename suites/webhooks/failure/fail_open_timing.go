package failure

import (
	"context"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var failOpenTiming = spec.Spec{
	ShortName: "FailOpenTiming",
	Suite:     "webhooks",
	Description: "A hanging webhook with timeoutSeconds T fails open (Ignore) or closed (Fail) after T and no later " +
		"than T plus the allowed slack; a shorter request timeout wins; an unset timeout is the v1 default of 10 s.",
	Features: []features.Name{features.ValidatingWebhook, features.MutatingWebhook},
	Profile:  spec.Core,
	Seed: "002 Handling fail-open initializers / webhooks: do not block the entire cluster if webhooks are not " +
		"ready; the call is bounded by the webhook's timeout",
}

var _ = harness.Describe(failOpenTiming, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		for _, seconds := range []int32{1, 2} {
			for _, policy := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Ignore, admissionregistrationv1.Fail} {
				ginkgo.It(fmt.Sprintf("%s, timeoutSeconds %d, %s: the request ends between T and T+slack", phase, seconds, policy), func(ctx ginkgo.SpecContext) {
					reg, err := speckit.Register(ctx, f, phase, harness.Hook{
						Name:           "hang",
						Behaviour:      fakewebhook.Behaviour{Action: fakewebhook.Hang},
						TimeoutSeconds: ptr.To(seconds),
						FailurePolicy:  policy,
					})
					gomega.Expect(err).NotTo(gomega.HaveOccurred())

					timeout := time.Duration(seconds) * time.Second
					var createErr error
					d := timed(func() {
						_, createErr = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
					})
					m := speckit.Within(f, "webhook-timeout-request-duration", d, timeout, timeout+f.Bounds.TimingSlack.Duration,
						map[string]string{"phase": string(phase), "failurePolicy": string(policy), "timeoutSeconds": fmt.Sprint(seconds)})
					if policy == admissionregistrationv1.Fail {
						speckit.ExpectCallFailure(createErr, reg.Hooks["hang"].FullName)
					} else {
						gomega.Expect(createErr).NotTo(gomega.HaveOccurred(), "failurePolicy Ignore must let the request through after the timeout")
					}
					gomega.Expect(m.Within()).To(gomega.BeTrue(), "request took %s, want between %s and %s", d, timeout, timeout+f.Bounds.TimingSlack.Duration)
				})
			}
		}
	}

	ginkgo.It("a request timeout shorter than the webhook's timeout wins", func(ctx ginkgo.SpecContext) {
		reg, err := f.RegisterValidating(ctx, "slow", harness.Hook{
			Name:           "hang",
			Behaviour:      fakewebhook.Behaviour{Action: fakewebhook.Hang},
			TimeoutSeconds: ptr.To[int32](5),
			FailurePolicy:  admissionregistrationv1.Ignore,
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		requestTimeout := time.Second
		var createErr error
		// The timeout query parameter alone, so the server's handling is
		// measured rather than the client giving up.
		d := timed(func() {
			createErr = f.Client.CoreV1().RESTClient().Post().Namespace(f.Namespace).Resource("configmaps").
				Param("timeout", requestTimeout.String()).Body(cm).Do(ctx).Error()
		})
		m := speckit.Within(f, "request-timeout-request-duration", d, requestTimeout, requestTimeout+f.Bounds.TimingSlack.Duration, nil)
		// Under Ignore, had the webhook's 5 s timeout applied, the request
		// would have succeeded after 5 s. kube-apiserver ends a request that
		// runs out of time with a 504 or, when the response has started, by
		// resetting the stream; either way the request fails at ~1 s.
		gomega.Expect(createErr).To(gomega.HaveOccurred(), "the request ran out of time while the webhook hung")
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "request took %s, want between %s and %s", d, requestTimeout, requestTimeout+f.Bounds.TimingSlack.Duration)
		// The journal records a call when its handler ends, which for a
		// hanging call is when the apiserver drops it: possibly just after
		// the client got its answer.
		waitCtx, cancel := context.WithTimeout(ctx, f.Bounds.ObjectState.Duration)
		defer cancel()
		call, err := f.Env.Webhooks.Journal().WaitFor(waitCtx, func(c fakewebhook.Call) bool {
			return c.Path == reg.Hooks["hang"].Path && c.Namespace == f.Namespace && c.Name == cm.Name
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the hanging webhook must have been called")
		sent, err := time.ParseDuration(call.TimeoutParam)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the apiserver tells the webhook its timeout in ?timeout=")
		gomega.Expect(sent).To(gomega.BeNumerically("<=", requestTimeout), "the webhook must be told the shorter, request timeout")
	})

	ginkgo.It("an unset timeoutSeconds is the v1 default of 10 s: a webhook answering after 3 s is waited for", func(ctx ginkgo.SpecContext) {
		answerAfter := 3 * time.Second
		reg, err := f.RegisterMutating(ctx, "default-timeout", harness.Hook{
			Name:          "slow-patch",
			Behaviour:     fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey, Delay: answerAfter},
			FailurePolicy: admissionregistrationv1.Ignore,
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		var stored = cm
		d := timed(func() {
			stored, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		m := speckit.Within(f, "default-timeout-request-duration", d, answerAfter, answerAfter+f.Bounds.TimingSlack.Duration, nil)
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "request took %s, want between %s and %s", d, answerAfter, answerAfter+f.Bounds.TimingSlack.Duration)
		gomega.Expect(stored.Data).To(gomega.HaveKeyWithValue("mutated", "by the webhook"),
			"the webhook's late answer must be used: the default timeout is longer than %s", answerAfter)
		calls := speckit.CallsTo(f, reg.Hooks["slow-patch"], f.Namespace, cm.Name)
		gomega.Expect(calls).To(gomega.HaveLen(1))
		gomega.Expect(calls[0].TimeoutParam).To(gomega.Equal("10s"), "the v1 default timeoutSeconds is 10")
	})
})
