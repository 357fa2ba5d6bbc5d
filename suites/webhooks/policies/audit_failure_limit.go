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

var policyAuditFailureLimit = spec.Spec{
	ShortName: "PolicyAuditFailureLimit",
	Suite:     "webhooks",
	Description: "The validation.policy.admission.k8s.io/validation_failure audit annotation lists at most 50 Audit failures: " +
		"with 51 failing validations it lists the first 50 in evaluation order; with exactly 50 it lists them all.",
	Features: []features.Name{features.ValidatingAdmissionPolicy, features.AuditLog, features.PolicyAuditAllFailures},
	Profile:  spec.Extended,
	Seed: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding.spec.validationActions (Audit); kubernetes PR 140001 " +
		"(every failure, at most 50: k8s.io/apiserver v0.37.2 pkg/admission/plugin/policy/validating/dispatcher.go maxValidationFailures)",
}

// auditFailureLimit is the most failures the annotation lists.
const auditFailureLimit = 50

var _ = harness.Describe(policyAuditFailureLimit, func(f *harness.Framework) {
	ginkgo.It("51 failing validations: the first 50 listed; 50 failing: all listed", func(ctx ginkgo.SpecContext) {
		// Index 0 never fails; index 1 fails unless the object has data.spare;
		// indices 2 to 51 always fail.
		validations := []admissionregistrationv1.Validation{
			{Expression: "true", Message: "never fails"},
			{Expression: "has(object.data) && has(object.data.spare)", Message: "failure 1"},
		}
		for i := 2; i <= auditFailureLimit+1; i++ {
			validations = append(validations, admissionregistrationv1.Validation{Expression: "false", Message: fmt.Sprintf("failure %d", i)})
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "many", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), Validations: validations,
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit}})).To(gomega.Succeed())
		name := speckit.PolicyName(f, "many")
		expected := func(from, to int) []validationFailure {
			var out []validationFailure
			for i := from; i <= to; i++ {
				out = append(out, validationFailure{Message: fmt.Sprintf("failure %d", i), Policy: name, Binding: name,
					ExpressionIndex: i, ValidationActions: []string{"Audit"}})
			}
			return out
		}

		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "fifty-one", map[string]string{"k": "v"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "validationActions Audit must not deny")
		gomega.Expect(failures(speckit.CreateAnnotations(ctx, f, "fifty-one"))).To(gomega.Equal(expected(1, auditFailureLimit)),
			"51 failures: the annotation lists the first 50, in evaluation order, and not the 51st")

		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "fifty", map[string]string{"spare": "yes"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "validationActions Audit must not deny")
		gomega.Expect(failures(speckit.CreateAnnotations(ctx, f, "fifty"))).To(gomega.Equal(expected(2, auditFailureLimit+1)),
			"50 failures: the annotation lists every one")
	})
})
