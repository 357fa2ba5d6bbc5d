package configurations

import (
	"context"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// policyUpdateCases: an update compiles an expression the stored policy
// already holds in the stored-expressions CEL environment (the one that
// keeps expressions valid across a rollback), a new one in the
// new-expressions environment. Updates keeping an expression must pass
// through that path and still be accepted, or refused for what the
// expression is.
var policyUpdateCases = []policyCase{
	// The stored set for variables is the old policy's validation
	// expressions: a new variable whose expression is one of them.
	vapUpdateCase("an update adding a variable whose expression is a stored validation expression", "", "",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Name: "always", Expression: s.Validations[0].Expression}}
		}),
	vapUpdateCase("an update keeping an auditAnnotation and changing the message", "", "",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Message = "still never fails"
		}),
	// The stored set for JSONPatch expressions is the old policy's
	// ApplyConfiguration expressions: the same expression moved to a
	// JSONPatch mutation is compiled as stored and refused for its type.
	mapUpdateCase("an update moving a stored applyConfiguration expression to a JSONPatch mutation",
		"spec.mutations[0].jsonPatch.expression", "must evaluate to list(JSONPatch)",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations = []mutatingpolicy.Mutation{speckit.JSONPatch(s.Mutations[0].ApplyConfiguration.Expression)}
		}),
}

// vapUpdateCase stores a policy with a validation and an auditAnnotation,
// and sends edit of it as a dry-run update.
func vapUpdateCase(name, field, detail string, edit func(*admissionregistrationv1.ValidatingAdmissionPolicySpec)) policyCase {
	return policyCase{kind: "ValidatingAdmissionPolicy", name: name, field: field, detail: detail,
		create: func(ctx context.Context, f *harness.Framework) error {
			policies := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
			name := speckit.PolicyName(f, "update")
			return storeThenDryRun(ctx, policies, name, &admissionregistrationv1.ValidatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
					FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
					MatchConstraints: speckit.Scoped(f, speckit.PolicyConfigMapRules()),
					Validations:      []admissionregistrationv1.Validation{{Expression: "object.kind == 'ConfigMap'", Message: "never fails"}},
					AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "kind", ValueExpression: "string(object.kind)"}},
				}}, func(ctx context.Context, current *admissionregistrationv1.ValidatingAdmissionPolicy) error {
				edit(&current.Spec)
				_, err := policies.Update(ctx, current, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
				return err
			})
		}}
}

// mapUpdateCase stores a policy with one ApplyConfiguration mutation and
// sends edit of it as a dry-run update.
func mapUpdateCase(name, field, detail string, edit func(*mutatingpolicy.MutatingAdmissionPolicySpec)) policyCase {
	return policyCase{kind: "MutatingAdmissionPolicy", name: name, field: field, detail: detail,
		create: func(ctx context.Context, f *harness.Framework) error {
			policies := mutatingpolicy.PolicyClient(f.Dynamic)
			name := speckit.PolicyName(f, "update")
			return storeThenDryRun(ctx, policies, name, &mutatingpolicy.MutatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
				Spec: mutatingpolicy.MutatingAdmissionPolicySpec{
					FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
					MatchConstraints:   speckit.Scoped(f, speckit.PolicyConfigMapRules()),
					ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
					Mutations:          []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`)},
				}}, func(ctx context.Context, current *mutatingpolicy.MutatingAdmissionPolicy) error {
				edit(&current.Spec)
				_, err := policies.Update(ctx, current, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
				return err
			})
		}}
}
