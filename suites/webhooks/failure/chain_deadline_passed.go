package failure

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var validatingAfterDeadline = spec.Spec{
	ShortName: "ValidatingWebhooksAfterDeadline",
	Suite:     "webhooks",
	Description: "A request whose deadline (?timeout=) has passed when its validating phase starts fails with 504 Timeout, " +
		"nothing stored, and the validating webhooks it matches are never called: neither failurePolicy Fail nor Ignore " +
		"turns the passed deadline into a failed call (no call, rejection or fail-open is counted for them).",
	Features: []features.Name{features.ValidatingWebhook, features.APIServerMetrics},
	Profile:  spec.Extended,
	Seed: "002 Handling fail-open initializers / webhooks: the call is bounded by the request; kubernetes issue 128162 " +
		"(the chain shares the request's deadline); k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/validating/dispatcher.go Dispatch",
}

var _ = harness.Describe(validatingAfterDeadline, func(f *harness.Framework) {
	ginkgo.It("a create whose deadline has passed: 504, nothing stored, the matching Fail and Ignore validating webhooks never called", func(ctx ginkgo.SpecContext) {
		reg, err := f.RegisterValidating(ctx, "late",
			harness.Hook{Name: "fail", Behaviour: speckit.Allow(), FailurePolicy: admissionregistrationv1.Fail},
			harness.Hook{Name: "ignore", Behaviour: speckit.Allow(), FailurePolicy: admissionregistrationv1.Ignore})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		read := []string{speckit.WebhookRequests, speckit.WebhookDuration, speckit.WebhookRejections, speckit.WebhookFailOpen}
		before := speckit.MustScrapeMetrics(ctx, f, read...)

		// A deadline of 1ns has passed before the request reaches admission
		// (the apiserver counts it from the request's receipt): the
		// mutating phase has no webhook of the case to call, so the
		// validating phase is the first to find the deadline passed.
		late := speckit.ConfigMap(f, "late", nil)
		err = f.Client.CoreV1().RESTClient().Post().Namespace(f.Namespace).Resource("configmaps").
			Param("timeout", "1ns").Body(late).Do(ctx).Error()
		gomega.Expect(err).To(gomega.HaveOccurred(), "a request whose deadline passed must fail")
		gomega.Expect(apierrors.IsTimeout(err)).To(gomega.BeTrue(), "a request whose deadline passed fails with 504 Timeout, got %T: %v", err, err)
		gomega.Expect(apierrors.ReasonForError(err)).To(gomega.Equal(metav1.StatusReasonTimeout))
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, late.Name, metav1.GetOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a request whose deadline passed must not be stored: %v", err)

		// A control request in time: both webhooks are called for it. The
		// late request's handling (which goes on after its 504) ended long
		// before: it has no webhook to wait for.
		control, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "in-time", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a request in time is admitted by both webhooks")
		after := speckit.MustScrapeMetrics(ctx, f, read...)

		for _, name := range []string{"fail", "ignore"} {
			hook := reg.Hooks[name]
			calls := func(object string) []fakewebhook.Call {
				return f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
					return c.Path == hook.Path && c.Namespace == f.Namespace && c.Name == object
				})
			}
			gomega.Expect(calls(late.Name)).To(gomega.BeEmpty(), "webhook %s must not be called for a request whose deadline passed", name)
			gomega.Expect(calls(control.Name)).To(gomega.HaveLen(1), "webhook %s is called for the request in time", name)
			speckit.ExpectMoved(before, after, speckit.WebhookRequests, speckit.Lbl("name", hook.FullName),
				speckit.Deltas{}.Add(1, speckit.Lbl("name", hook.FullName, "type", "validating", "operation", "CREATE", "code", "200", "rejected", "false")),
				"only the request in time calls the webhook: the late one is no failed call either")
			speckit.ExpectMoved(before, after, speckit.WebhookDuration, speckit.Lbl("name", hook.FullName),
				speckit.Deltas{}.Add(1, speckit.Lbl("name", hook.FullName, "type", "validating", "operation", "CREATE", "rejected", "false")),
				"one duration, the request in time's")
			speckit.ExpectMoved(before, after, speckit.WebhookRejections, speckit.Lbl("name", hook.FullName), speckit.Deltas{},
				"the late request is refused for its deadline, not by a failed call of the webhook")
			speckit.ExpectMoved(before, after, speckit.WebhookFailOpen, speckit.Lbl("name", hook.FullName), speckit.Deltas{},
				"the late request does not fail open")
		}
	})
})
