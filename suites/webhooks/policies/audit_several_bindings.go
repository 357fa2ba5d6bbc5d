package policies

import (
	"fmt"

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

var policyAuditSeveralBindings = spec.Spec{
	ShortName: "PolicyAuditSeveralBindings",
	Suite:     "webhooks",
	Description: "When several ValidatingAdmissionPolicy bindings with validationActions Audit fail on one request, " +
		"the one validation.policy.admission.k8s.io/validation_failure audit annotation lists every failure, " +
		"each with its policy, binding, message, expression index and actions.",
	Features: []features.Name{features.ValidatingAdmissionPolicy, features.AuditLog, features.PolicyAuditAllFailures},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding.spec.validationActions (Audit)",
}

var _ = harness.Describe(policyAuditSeveralBindings, func(f *harness.Framework) {
	ginkgo.It("two bindings of one policy and one of another fail: all three failures in the one annotation", func(ctx ginkgo.SpecContext) {
		first, second := speckit.PolicyName(f, "first"), speckit.PolicyName(f, "second")
		// The first policy fails on its second expression, the second on its
		// first, with their own messages: each entry is told apart.
		for name, validations := range map[string][]admissionregistrationv1.Validation{
			first:  {{Expression: "true", Message: "never fails"}, {Expression: speckit.RejectsBad, Message: "first says verdict is bad"}},
			second: {{Expression: speckit.RejectsBad, Message: "second says verdict is bad"}},
		} {
			gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(admissionregistrationv1.Fail), Validations: validations}},
			)).To(gomega.Succeed())
		}
		audit := []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit}
		warnAudit := []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn, admissionregistrationv1.Audit}
		bindings := []struct {
			name, policy string
			actions      []admissionregistrationv1.ValidationAction
		}{
			{speckit.PolicyName(f, "first-audit"), first, audit},
			{speckit.PolicyName(f, "first-warn-audit"), first, warnAudit},
			{speckit.PolicyName(f, "second-audit"), second, audit},
		}
		for _, b := range bindings {
			gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: b.name},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: b.policy, ValidationActions: b.actions}},
			)).To(gomega.Succeed())
		}
		// The probe policy is created after them, so once it is enforced
		// every replica has them too.
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())

		client, w := speckit.WarningClient(f)
		_, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "bad", "bad"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "validationActions Audit and Warn must not deny")
		gomega.Expect(w.Take()).To(gomega.ConsistOf(fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': first says verdict is bad",
			first, bindings[1].name)), "the Warn binding must warn once, the Audit-only ones not at all")

		want := []validationFailure{
			{Message: "first says verdict is bad", Policy: first, Binding: bindings[0].name, ExpressionIndex: 1, ValidationActions: []string{"Audit"}},
			{Message: "first says verdict is bad", Policy: first, Binding: bindings[1].name, ExpressionIndex: 1, ValidationActions: []string{"Warn", "Audit"}},
			{Message: "second says verdict is bad", Policy: second, Binding: bindings[2].name, ExpressionIndex: 0, ValidationActions: []string{"Audit"}},
		}
		gomega.Expect(failures(speckit.CreateAnnotations(ctx, f, "bad"))).To(gomega.ConsistOf(want),
			"the one validation_failure annotation must list the failure of every Audit binding, not only one")

		_, err = client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "good", "good"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(speckit.CreateAnnotations(ctx, f, "good")).NotTo(gomega.HaveKey(validationFailureKey), "a passing object must not be annotated")
	})
})
