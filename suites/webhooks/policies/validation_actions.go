package policies

import (
	"fmt"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyValidationActions = spec.Spec{
	ShortName: "PolicyValidationActions",
	Suite:     "webhooks",
	Description: "A failed ValidatingAdmissionPolicy validation denies with HTTP 422 Invalid (or the code of its reason) under " +
		"validationActions Deny, only warns the client with the policy's and binding's names under Warn, and lets the " +
		"request through silently under Audit alone.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding.spec.validationActions",
}

var _ = harness.Describe(policyValidationActions, func(f *harness.Framework) {
	bad := func(name string) *corev1.ConfigMap { return speckit.Verdict(f, name, "bad") }
	deny := func(reason *metav1.StatusReason) admissionregistrationv1.ValidatingAdmissionPolicySpec {
		return admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Validations:   []admissionregistrationv1.Validation{{Expression: speckit.RejectsBad, Message: "verdict is bad", Reason: reason}},
		}
	}

	ginkgo.It("Deny: HTTP 422 Invalid naming policy, binding and message; a passing object is admitted", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "deny", deny(nil),
			admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, bad("bad"), metav1.CreateOptions{})
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "deny", "verdict is bad"))
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "good", "good"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "an object passing every validation must be admitted")
	})

	for _, tc := range []struct {
		reason metav1.StatusReason
		code   int32
	}{
		{metav1.StatusReasonForbidden, http.StatusForbidden},
		{metav1.StatusReasonRequestEntityTooLarge, http.StatusRequestEntityTooLarge},
	} {
		ginkgo.It(fmt.Sprintf("Deny with validation reason %s: HTTP %d", tc.reason, tc.code), func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPWith(ctx, f, "reason", deny(ptr.To(tc.reason)),
				admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, bad("bad"), metav1.CreateOptions{})
			speckit.ExpectPolicyDenial(err, tc.code, tc.reason, speckit.VAPDenied(f, "reason", "verdict is bad"))
		})
	}

	ginkgo.It("Warn: the request is admitted and the client gets the exact warning", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "warn", deny(nil), admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}})).To(gomega.Succeed())
		client, w := speckit.WarningClient(f)
		_, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, bad("bad"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "validationActions [Warn] must not deny")
		name := speckit.PolicyName(f, "warn")
		gomega.Expect(w.Take()).To(gomega.ConsistOf(
			fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': verdict is bad", name, name)),
			"validationActions [Warn] must send exactly one warning naming policy, binding and message")
		_, err = client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "good", "good"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(w.Take()).To(gomega.BeEmpty(), "a passing object must not be warned about")
	})

	ginkgo.It("Audit alone: the request is admitted without a warning", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "audit", deny(nil), admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit}})).To(gomega.Succeed())
		client, w := speckit.WarningClient(f)
		_, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, bad("bad"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "validationActions [Audit] must not deny")
		gomega.Expect(w.Take()).To(gomega.BeEmpty(), "validationActions [Audit] must not warn")
	})

	ginkgo.It("refuses a binding with both Deny and Warn, and a validation reason outside the API's set", func(ctx ginkgo.SpecContext) {
		ar := f.Client.AdmissionregistrationV1()
		_, err := ar.ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "both"), Labels: f.Labels()},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, "both"), MatchResources: speckit.Scoped(f, nil),
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny, admissionregistrationv1.Warn}},
		}, metav1.CreateOptions{})
		if err == nil {
			ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.ValidatingAdmissionPolicyBindings().Delete, speckit.PolicyName(f, "both"))
		}
		speckit.ExpectFieldInvalid(err, "spec.validationActions", "must not contain both Deny and Warn")
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "unauthorized")},
			Spec: deny(ptr.To(metav1.StatusReasonUnauthorized))}
		speckit.ExpectFieldInvalid(speckit.CreateVAP(ctx, f, p), "spec.validations[0].reason", "Unsupported value")
	})
})
