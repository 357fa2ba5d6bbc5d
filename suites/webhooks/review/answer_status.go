package review

import (
	"errors"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookDenialStatus = spec.Spec{
	ShortName: "WebhookDenialStatus",
	Suite:     "webhooks",
	Description: "A webhook's denial reaches the client with the webhook's status code, reason and details, and the message " +
		"\"admission webhook \\\"<name>\\\" denied the request: <message>\" (the reason when there is no message, " +
		"\"without explanation\" when there is neither); a code below 400 becomes 400; nothing is stored.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "001 Background: any rejected request can propagate errors back to the caller with why the request failed",
}

var _ = harness.Describe(webhookDenialStatus, func(f *harness.Framework) {
	// Every field of the details, so one the apiserver drops or rewrites
	// fails the comparison (RetryAfterSeconds also becomes Retry-After,
	// which client-go acts on only for 429 and 5xx, not this 409).
	details := &metav1.StatusDetails{Name: "subject", Group: "example.admission-conformance.io", Kind: "widgets", UID: "0d9a5a4e-denial",
		RetryAfterSeconds: 7, Causes: []metav1.StatusCause{{Type: "FieldValueForbidden", Field: "data.submitted", Message: "not today"}}}
	cases := []struct {
		name    string
		result  *metav1.Status
		code    int32
		reason  metav1.StatusReason
		message string // after "admission webhook \"NAME\" denied the request"
		details *metav1.StatusDetails
	}{
		{"code, reason, message and details pass through", &metav1.Status{Code: 409, Reason: metav1.StatusReasonConflict, Message: "taken", Details: details},
			409, metav1.StatusReasonConflict, ": taken", details},
		{"a 422 denial stays 422", &metav1.Status{Code: 422, Reason: metav1.StatusReasonInvalid, Message: "bad"},
			422, metav1.StatusReasonInvalid, ": bad", nil},
		{"no message: the reason explains", &metav1.Status{Code: 403, Reason: "PolicyViolation"},
			403, "PolicyViolation", ": PolicyViolation", nil},
		{"neither message nor reason: without explanation", &metav1.Status{Code: 403},
			403, "", " without explanation", nil},
		{"a code below 400 becomes 400, a Success status Failure", &metav1.Status{Status: metav1.StatusSuccess, Code: 200, Message: "ok?"},
			400, "", ": ok?", nil},
		{"no code at all becomes 400", &metav1.Status{Message: "zero"},
			400, "", ": zero", nil},
	}
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		for _, tc := range cases {
			ginkgo.It(fmt.Sprintf("%s: %s", phase, tc.name), func(ctx ginkgo.SpecContext) {
				reg, err := speckit.Register(ctx, f, phase, harness.Hook{Name: "deny", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny, Result: tc.result}})
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				cm := speckit.Subject(f.Namespace)
				_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
				gomega.Expect(err).To(gomega.HaveOccurred(), "a denial must reject the request")
				var status apierrors.APIStatus
				gomega.Expect(errors.As(err, &status)).To(gomega.BeTrue(), "a denial must be a Status, got %T: %v", err, err)
				s := status.Status()
				gomega.Expect(s.Status).To(gomega.Equal(metav1.StatusFailure), "a denial's status")
				gomega.Expect(s.Code).To(gomega.Equal(tc.code), "the denial's HTTP code (message %q)", s.Message)
				gomega.Expect(s.Reason).To(gomega.Equal(tc.reason), "the denial's reason (message %q)", s.Message)
				want := fmt.Sprintf("admission webhook %q denied the request%s", reg.Hooks["deny"].FullName, tc.message)
				gomega.Expect(s.Message).To(gomega.Equal(want), "the denial's message")
				if tc.details != nil {
					gomega.Expect(s.Details).NotTo(gomega.BeNil(), "the webhook's details must reach the client")
					gomega.Expect(*s.Details).To(gomega.Equal(*tc.details), "the webhook's details (name, group, kind, uid, retryAfterSeconds, causes) must reach the client unchanged")
				}
				_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
				gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a denied create must store nothing, got %v", err)
			})
		}
	}
})
