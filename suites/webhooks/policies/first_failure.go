package policies

import (
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyFirstFailure = spec.Spec{
	ShortName: "PolicyFirstFailureDecides",
	Suite:     "webhooks",
	Description: "When several validations of a ValidatingAdmissionPolicy fail, the first failing one in the list decides the " +
		"denial: its message, its reason and the HTTP code of that reason (422 Invalid without one); " +
		"validations that pass before it and failures after it change nothing.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicySpec.validations (evaluated in order; Validation.reason)",
}

var _ = harness.Describe(policyFirstFailure, func(f *harness.Framework) {
	fails := func(message string, reason *metav1.StatusReason) admissionregistrationv1.Validation {
		return admissionregistrationv1.Validation{Expression: speckit.RejectsBad, Message: message, Reason: reason}
	}
	passes := admissionregistrationv1.Validation{Expression: "true", Message: "never fails"}
	cases := []struct {
		name        string
		validations []admissionregistrationv1.Validation
		code        int32
		reason      metav1.StatusReason
		message     string
		notMessages []string
	}{
		{"a pass, then Forbidden, then Invalid: 403 Forbidden with the second message",
			[]admissionregistrationv1.Validation{passes, fails("second fails", ptr.To(metav1.StatusReasonForbidden)), fails("third fails", ptr.To(metav1.StatusReasonInvalid))},
			http.StatusForbidden, metav1.StatusReasonForbidden, "second fails", []string{"third fails", "never fails"}},
		{"no reason, then Forbidden: 422 Invalid with the first message",
			[]admissionregistrationv1.Validation{fails("first fails", nil), fails("second fails", ptr.To(metav1.StatusReasonForbidden))},
			http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "first fails", []string{"second fails"}},
		{"RequestEntityTooLarge, then Forbidden: 413 RequestEntityTooLarge with the first message",
			[]admissionregistrationv1.Validation{fails("first fails", ptr.To(metav1.StatusReasonRequestEntityTooLarge)), fails("second fails", ptr.To(metav1.StatusReasonForbidden))},
			http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge, "first fails", []string{"second fails"}},
	}
	for _, tc := range cases {
		ginkgo.It(tc.name, func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPWith(ctx, f, "several", admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail), Validations: tc.validations,
			}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "bad", "bad"), metav1.CreateOptions{})
			speckit.ExpectPolicyDenial(err, tc.code, tc.reason, speckit.VAPDenied(f, "several", tc.message))
			for _, other := range tc.notMessages {
				gomega.Expect(err.Error()).NotTo(gomega.ContainSubstring(other), "only the first failing validation is reported")
			}
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "good", "good"), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "an object passing every validation must be admitted")
		})
	}
})
