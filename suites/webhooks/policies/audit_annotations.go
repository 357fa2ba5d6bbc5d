package policies

import (
	"fmt"
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

var policyAuditAnnotations = spec.Spec{
	ShortName: "PolicyAuditAnnotations",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy failure under validationActions Audit leaves the audit annotation " +
		"validation.policy.admission.k8s.io/validation_failure (JSON naming message, policy, binding, expression index " +
		"and actions), and the policy's auditAnnotations appear as <policy name>/<key>, omitted when the value is null.",
	Features: []features.Name{features.ValidatingAdmissionPolicy, features.AuditLog},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding.spec.validationActions (Audit), ValidatingAdmissionPolicy.spec.auditAnnotations",
}

var _ = harness.Describe(policyAuditAnnotations, func(f *harness.Framework) {
	s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
		FailurePolicy: ptr.To(admissionregistrationv1.Fail),
		Validations: []admissionregistrationv1.Validation{
			{Expression: "true", Message: "never fails"},
			{Expression: speckit.RejectsBad, Message: "verdict is bad"},
		},
	}
	for _, actions := range [][]admissionregistrationv1.ValidationAction{
		{admissionregistrationv1.Audit},
		{admissionregistrationv1.Warn, admissionregistrationv1.Audit},
		{admissionregistrationv1.Deny, admissionregistrationv1.Audit},
	} {
		ginkgo.It(fmt.Sprintf("validationActions %v: the validation_failure annotation", actions), func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPWith(ctx, f, "audit", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: actions})).To(gomega.Succeed())
			client, w := speckit.WarningClient(f)
			_, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "bad", "bad"), metav1.CreateOptions{})
			name := speckit.PolicyName(f, "audit")
			if actions[0] == admissionregistrationv1.Deny {
				speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "audit", "verdict is bad"))
			} else {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "validationActions %v must not deny", actions)
			}
			if actions[0] == admissionregistrationv1.Warn {
				gomega.Expect(w.Take()).To(gomega.ConsistOf(fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': verdict is bad", name, name)))
			}
			var want []string
			for _, a := range actions {
				want = append(want, string(a))
			}
			gomega.Expect(failures(speckit.CreateAnnotations(ctx, f, "bad"))).To(gomega.Equal([]validationFailure{{
				Message: "verdict is bad", Policy: name, Binding: name, ExpressionIndex: 1, ValidationActions: want,
			}}), "the validation_failure annotation must name message, policy, binding, the failing expression's index and the binding's actions")
			_, err = client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, "good", "good"), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(speckit.CreateAnnotations(ctx, f, "good")).NotTo(gomega.HaveKey(validationFailureKey), "a passing object must not be annotated")
		})
	}

	ginkgo.It("auditAnnotations: <policy name>/<key>, omitted for null and blank values", func(ctx ginkgo.SpecContext) {
		a := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			AuditAnnotations: []admissionregistrationv1.AuditAnnotation{
				{Key: "verdict", ValueExpression: "'verdict of ' + object.metadata.name + ': ' + object.data['verdict']"},
				{Key: "null", ValueExpression: "null"},
				{Key: "blank", ValueExpression: "'  '"},
				{Key: "conditional", ValueExpression: "object.data['verdict'] == 'bad' ? 'flagged' : ''"},
			},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "annotate", a, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit}})).To(gomega.Succeed())
		name := speckit.PolicyName(f, "annotate")
		for _, v := range []string{"bad", "good"} {
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, v, v), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a policy with only auditAnnotations must admit")
		}
		bad := speckit.CreateAnnotations(ctx, f, "bad")
		gomega.Expect(bad).To(gomega.HaveKeyWithValue(name+"/verdict", "verdict of bad: bad"), "auditAnnotations must be keyed <policy name>/<key>")
		gomega.Expect(bad).To(gomega.HaveKeyWithValue(name+"/conditional", "flagged"))
		for _, key := range []string{"null", "blank"} {
			gomega.Expect(bad).NotTo(gomega.HaveKey(name+"/"+key), "an auditAnnotation whose value is %s must be omitted", key)
		}
		good := speckit.CreateAnnotations(ctx, f, "good")
		gomega.Expect(good).To(gomega.HaveKeyWithValue(name+"/verdict", "verdict of good: good"))
		gomega.Expect(good).NotTo(gomega.HaveKey(name+"/conditional"), "an empty valueExpression must omit the annotation")
	})
})
