package observability

import (
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

var webhookCallMetrics = spec.Spec{
	ShortName: "WebhookCallMetrics",
	Suite:     "webhooks",
	Description: "Every webhook call is counted in apiserver_admission_webhook_request_total and observed in " +
		"apiserver_admission_webhook_admission_duration_seconds with its type, operation, code and rejected labels; every " +
		"rejection in apiserver_admission_webhook_rejection_count with its error_type and rejection_code; every fail-open in " +
		"apiserver_admission_webhook_fail_open_count.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.APIServerMetrics},
	Profile:  spec.Extended,
	Seed:     "002 failing open must stay visible to admins; k8s.io/apiserver v0.37.2 pkg/admission/metrics (the webhook metrics)",
}

// callDelay is how long the timed hooks wait before answering: more than
// the 0.5 s bucket of webhook_admission_duration_seconds (buckets 0.005,
// 0.025, 0.1, 0.5, 1, 2.5, 10, 25), so a duration observed without the call
// in it lands at or below that bucket.
const callDelay = 600 * time.Millisecond

// callBucket is that bucket's upper bound.
const callBucket = 0.5

var _ = harness.Describe(webhookCallMetrics, func(f *harness.Framework) {
	read := []string{speckit.WebhookRequests, speckit.WebhookDuration, speckit.WebhookRejections, speckit.WebhookFailOpen}

	ginkgo.It("admitted calls: code 200, rejected false; a call failing open: its code, rejected false, fail_open_count", func(ctx ginkgo.SpecContext) {
		m, err := f.RegisterMutating(ctx, "calls",
			harness.Hook{Name: "patch", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey, Delay: callDelay}},
			harness.Hook{Name: "ignored", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.InternalError}, FailurePolicy: admissionregistrationv1.Ignore})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		v, err := f.RegisterValidating(ctx, "calls",
			harness.Hook{Name: "allow", Behaviour: fakewebhook.Behaviour{Delay: callDelay}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		patch, ignored, allow := m.Hooks["patch"].FullName, m.Hooks["ignored"].FullName, v.Hooks["allow"].FullName

		before := speckit.MustScrapeMetrics(ctx, f, read...)
		cm := speckit.Subject(f.Namespace)
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "every hook admits, or fails open")
		created.Data["updated"] = "by the client"
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, created, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		after := speckit.MustScrapeMetrics(ctx, f, read...)

		for _, h := range []struct{ name, typ, code string }{{patch, "admit", "200"}, {ignored, "admit", "500"}, {allow, "validating", "200"}} {
			byOp := speckit.Deltas{}
			durations := speckit.Deltas{}
			for _, op := range []string{"CREATE", "UPDATE"} {
				byOp.Add(1, speckit.Lbl("name", h.name, "type", h.typ, "operation", op, "code", h.code, "rejected", "false"))
				durations.Add(1, speckit.Lbl("name", h.name, "type", h.typ, "operation", op, "rejected", "false"))
			}
			speckit.ExpectMoved(before, after, speckit.WebhookRequests, speckit.Lbl("name", h.name), byOp,
				"one call per request, code 200 for an answer and the HTTP status of a failed call, rejected false when the request goes on")
			speckit.ExpectMoved(before, after, speckit.WebhookDuration, speckit.Lbl("name", h.name), durations, "one duration per call")
			speckit.ExpectMoved(before, after, speckit.WebhookRejections, speckit.Lbl("name", h.name), speckit.Deltas{}, "a call that admits or fails open rejects nothing")
		}
		for _, h := range []string{patch, allow} {
			expectMovedBy(before, after, speckit.WebhookDuration, speckit.Lbl("name", h), samplesAtOrBelow(callBucket), nil, speckit.Deltas{},
				"the hook answered after "+callDelay.String()+": no duration of its calls can be at or below 0.5 s")
		}
		speckit.ExpectMoved(before, after, speckit.WebhookFailOpen, speckit.Lbl("name", ignored), speckit.Deltas{}.Add(2, speckit.Lbl("name", ignored, "type", "admit")),
			"the failing hook under failurePolicy Ignore failed open once per request")
		for _, h := range []string{patch, allow} {
			speckit.ExpectMoved(before, after, speckit.WebhookFailOpen, speckit.Lbl("name", h), speckit.Deltas{}, "a hook that answered never fails open")
		}
	})

	ginkgo.It("validating rejections: no_error with the denial's code (over 600 counted as 600), calling_webhook_error with the failed call's code", func(ctx ginkgo.SpecContext) {
		existing := speckit.Subject(f.Namespace)
		existing, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, existing, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		v, err := f.RegisterValidating(ctx, "rejects",
			harness.Hook{Name: "deny", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "no"}},
			harness.Hook{Name: "deny-700", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny,
				Result: &metav1.Status{Status: metav1.StatusFailure, Code: 700, Message: "no, in code 700"}}},
			harness.Hook{Name: "error", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.InternalError}},
			harness.Hook{Name: "timeout", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Hang}, TimeoutSeconds: ptr.To[int32](1)},
			harness.Hook{Name: "ignored", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.InternalError}, FailurePolicy: admissionregistrationv1.Ignore})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		before := speckit.MustScrapeMetrics(ctx, f, read...)
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(), "the validating hooks reject the create")
		existing.Data["updated"] = "by the client"
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, existing, metav1.UpdateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(), "the validating hooks reject the update")
		after := speckit.MustScrapeMetrics(ctx, f, read...)

		// Validating hooks are called in parallel: each is called for both
		// requests, whatever the others answer.
		for _, h := range []struct {
			hook, errorType, code string
		}{
			{"deny", "no_error", "403"},
			{"deny-700", "no_error", "600"},             // codes over 600 are counted as 600
			{"error", "calling_webhook_error", "500"},   // the hook's HTTP 500
			{"timeout", "calling_webhook_error", "503"}, // no answer: the apiserver's own 503 "error calling webhook"
		} {
			name := v.Hooks[h.hook].FullName
			rejections, requests, durations := speckit.Deltas{}, speckit.Deltas{}, speckit.Deltas{}
			for _, op := range []string{"CREATE", "UPDATE"} {
				rejections.Add(1, speckit.Lbl("name", name, "type", "validating", "operation", op, "error_type", h.errorType, "rejection_code", h.code))
				requests.Add(1, speckit.Lbl("name", name, "type", "validating", "operation", op, "code", h.code, "rejected", "true"))
				durations.Add(1, speckit.Lbl("name", name, "type", "validating", "operation", op, "rejected", "true"))
			}
			speckit.ExpectMoved(before, after, speckit.WebhookRejections, speckit.Lbl("name", name), rejections, "one rejection per request, with its error type and code")
			speckit.ExpectMoved(before, after, speckit.WebhookRequests, speckit.Lbl("name", name), requests, "one call per request, rejected")
			speckit.ExpectMoved(before, after, speckit.WebhookDuration, speckit.Lbl("name", name), durations, "one duration per call, rejected")
			speckit.ExpectMoved(before, after, speckit.WebhookFailOpen, speckit.Lbl("name", name), speckit.Deltas{}, "failurePolicy Fail never fails open")
		}
		ignored := v.Hooks["ignored"].FullName
		speckit.ExpectMoved(before, after, speckit.WebhookRejections, speckit.Lbl("name", ignored), speckit.Deltas{}, "a call failing open is no rejection")
		speckit.ExpectMoved(before, after, speckit.WebhookRequests, speckit.Lbl("name", ignored), speckit.Deltas{}.
			Add(1, speckit.Lbl("name", ignored, "type", "validating", "operation", "CREATE", "code", "500", "rejected", "false")).
			Add(1, speckit.Lbl("name", ignored, "type", "validating", "operation", "UPDATE", "code", "500", "rejected", "false")),
			"a call failing open is counted with its code and rejected false")
		speckit.ExpectMoved(before, after, speckit.WebhookFailOpen, speckit.Lbl("name", ignored), speckit.Deltas{}.Add(2, speckit.Lbl("name", ignored, "type", "validating")),
			"the failing hook under failurePolicy Ignore failed open once per request")
	})

	ginkgo.It("mutating rejections: a denial's code (under 400 counted as 400), a failed call, an answer the apiserver cannot apply", func(ctx ginkgo.SpecContext) {
		m, err := f.RegisterMutating(ctx, "rejects",
			harness.Hook{Name: "deny", ObjectSelector: routed("deny"), Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny, Code: 429, Message: "later"}},
			harness.Hook{Name: "deny-low", ObjectSelector: routed("deny-low"), Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny,
				Result: &metav1.Status{Code: 299, Message: "no, in code 299"}}},
			harness.Hook{Name: "error", ObjectSelector: routed("error"), Behaviour: fakewebhook.Behaviour{Action: fakewebhook.InternalError}},
			harness.Hook{Name: "bad-patch", ObjectSelector: routed("bad-patch"), Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch,
				Patch: []fakewebhook.PatchOperation{{Op: "remove", Path: "/data/absent"}}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		hooks := []struct {
			hook, errorType, code string
		}{
			{"deny", "no_error", "429"},
			{"deny-low", "no_error", "400"},                // a denial under 400 is answered, and counted, as 400
			{"error", "calling_webhook_error", "500"},      // the hook's HTTP 500
			{"bad-patch", "apiserver_internal_error", "0"}, // the patch does not apply: no code
		}
		read := []string{speckit.WebhookRequests, speckit.WebhookRejections}
		before := speckit.MustScrapeMetrics(ctx, f, read...)
		for _, h := range hooks {
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, routedConfigMap(f, h.hook, h.hook, map[string]string{"k": "v"}), metav1.CreateOptions{})
			gomega.Expect(err).To(gomega.HaveOccurred(), "hook %s rejects the create", h.hook)
		}
		after := speckit.MustScrapeMetrics(ctx, f, read...)
		for _, h := range hooks {
			name := m.Hooks[h.hook].FullName
			speckit.ExpectMoved(before, after, speckit.WebhookRejections, speckit.Lbl("name", name),
				speckit.Deltas{}.Add(1, speckit.Lbl("name", name, "type", "admit", "operation", "CREATE", "error_type", h.errorType, "rejection_code", h.code)),
				"one rejection, with its error type and code")
			speckit.ExpectMoved(before, after, speckit.WebhookRequests, speckit.Lbl("name", name),
				speckit.Deltas{}.Add(1, speckit.Lbl("name", name, "type", "admit", "operation", "CREATE", "code", h.code, "rejected", "true")),
				"one call, rejected")
		}
	})
})
