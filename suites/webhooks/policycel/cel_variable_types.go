package policycel

import (
	"errors"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyCELVariableTypes = spec.Spec{
	ShortName: "PolicyCELVariableTypes",
	Suite:     "webhooks",
	Description: "ValidatingAdmissionPolicy variables of every CEL type (int, uint, double, bool, bytes, duration, timestamp, " +
		"null, lists and maps) have the type of their expression: later expressions using them as that type are accepted " +
		"and evaluate by their values, one using a variable as another type is refused at create (422 naming the " +
		"expression), and so are a validation expression that is not bool and an auditAnnotation valueExpression that is " +
		"neither string nor null.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicySpec.variables (KEP-3488 composition: a variable has the " +
		"type of its expression), Validation.expression (\"must evaluate to bool\"), AuditAnnotation.valueExpression (\"must " +
		"evaluate to either a string or null value\")",
}

var _ = harness.Describe(policyCELVariableTypes, func(f *harness.Framework) {
	ginkgo.It("variables of every type, used as their type, evaluate by their values", func(ctx ginkgo.SpecContext) {
		variables := []admissionregistrationv1.Variable{
			{Name: "n", Expression: "size(object.data)"},
			{Name: "u", Expression: "1u"},
			{Name: "f", Expression: "1.5"},
			{Name: "yes", Expression: "true"},
			{Name: "b", Expression: "b'xy'"},
			{Name: "d", Expression: "duration('1s')"},
			{Name: "t", Expression: "timestamp('2026-01-01T00:00:00Z')"},
			{Name: "z", Expression: "null"},
			{Name: "keys", Expression: "object.data.map(k, k)"},
			{Name: "ints", Expression: "[1, 2]"},
			{Name: "m", Expression: "{'a': 1}"},
		}
		validations := []admissionregistrationv1.Validation{
			{Expression: "variables.n < 3", Message: "at most two keys"},
			{Expression: "variables.keys.size() == variables.n", Message: "keys"},
			{Expression: "variables.u + 1u == 2u", Message: "uint"},
			{Expression: "variables.f * 2.0 == 3.0", Message: "double"},
			{Expression: "variables.yes", Message: "bool"},
			{Expression: "size(variables.b) == 2", Message: "bytes"},
			{Expression: "variables.d + duration('1s') == duration('2s')", Message: "duration"},
			{Expression: "variables.t + variables.d > variables.t", Message: "timestamp"},
			{Expression: "variables.z == null", Message: "null"},
			{Expression: "variables.ints[1] - variables.ints[0] == 1", Message: "list"},
			{Expression: "variables.m['a'] + 1 == 2", Message: "map"},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "types", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), Variables: variables, Validations: validations,
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed(),
			"every expression uses its variables as their types: the policy is accepted")
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "two", map[string]string{"a": "1", "b": "2"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "every validation holds for two keys")
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "three", map[string]string{"a": "1", "b": "2", "c": "3"}), metav1.CreateOptions{})
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "types", "at most two keys"))
	})

	// refused asserts that the dry-run create of a policy with spec is a
	// 422 whose one cause names field with a message containing reason.
	refused := func(ctx ginkgo.SpecContext, spec admissionregistrationv1.ValidatingAdmissionPolicySpec, field, reason string) {
		_, err := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "refused"), Labels: f.Labels()}, Spec: spec},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "the policy must be refused (%s)", reason)
		gomega.ExpectWithOffset(1, apierrors.IsInvalid(err)).To(gomega.BeTrue(), "a refused policy is 422 Invalid, got %v", err)
		var status apierrors.APIStatus
		gomega.ExpectWithOffset(1, errors.As(err, &status)).To(gomega.BeTrue())
		gomega.ExpectWithOffset(1, status.Status().Details).NotTo(gomega.BeNil())
		causes := status.Status().Details.Causes
		gomega.ExpectWithOffset(1, causes).To(gomega.HaveLen(1), "one cause: %v", err)
		gomega.ExpectWithOffset(1, causes[0].Field).To(gomega.Equal(field))
		gomega.ExpectWithOffset(1, causes[0].Message).To(gomega.ContainSubstring(reason))
	}
	base := func() admissionregistrationv1.ValidatingAdmissionPolicySpec {
		return admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: speckit.ScopedConstraints(f, nil),
			Variables:        []admissionregistrationv1.Variable{{Name: "n", Expression: "size(object.data)"}},
		}
	}

	ginkgo.It("an expression using an int variable as a string is refused at create", func(ctx ginkgo.SpecContext) {
		s := base()
		s.Validations = []admissionregistrationv1.Validation{{Expression: "variables.n < 3"}, {Expression: "variables.n == 'x'"}}
		refused(ctx, s, "spec.validations[1].expression", "found no matching overload for '_==_' applied to '(int, string)'")
	})

	ginkgo.It("a validation expression that is not bool is refused at create", func(ctx ginkgo.SpecContext) {
		s := base()
		s.Validations = []admissionregistrationv1.Validation{{Expression: "variables.n"}}
		refused(ctx, s, "spec.validations[0].expression", "must evaluate to bool but got int")
	})

	ginkgo.It("an auditAnnotation valueExpression that is neither string nor null is refused at create", func(ctx ginkgo.SpecContext) {
		s := base()
		s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "count", ValueExpression: "variables.n"}}
		refused(ctx, s, "spec.auditAnnotations[0].valueExpression", "must evaluate to one of [string null_type] but got int")
	})
})
