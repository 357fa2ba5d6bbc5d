package configurations

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// policyRuleCases: validation rules of admissionregistration.k8s.io/v1
// policies that coverage found no case reaching (resourceNames, limits on
// auditAnnotations, binding and paramRef names, the mutation forms, the
// type-checking warnings a client writes to a policy's status).
var policyRuleCases = []policyCase{
	vapCase("a resourceName that is not a path segment", "spec.matchConstraints.resourceRules[0].resourceNames[0]", "may not contain '/'",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.ResourceRules[0].ResourceNames = []string{"a/b"}
		}),
	vapCase("a resourceName twice", "spec.matchConstraints.resourceRules[0].resourceNames[1]", "Duplicate value",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.ResourceRules[0].ResourceNames = []string{"one", "one"}
		}),
	vapCase("21 auditAnnotations, one over the limit", "spec.auditAnnotations", "must not have more than 20 auditAnnotations",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = auditAnnotations(21)
		}),
	vapCase("20 auditAnnotations, the limit", "", "",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = auditAnnotations(20)
		}),
	vapCase("an auditAnnotation valueExpression over 5 KiB", "spec.auditAnnotations[0].valueExpression", "must not exceed 5120 bytes in length",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "'" + strings.Repeat("a", 5120) + "'"}}
		}),
	// "/" parses as no group and no version.
	vapCase("a paramKind apiVersion of a lone slash", "spec.paramKind.apiVersion", "version must be specified",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "/", Kind: "ConfigMap"}
		}),
	unnamedPolicyWithAuditAnnotation(),
	vapbCase("a policyName that is not a DNS subdomain", "spec.policyName", "RFC 1123 subdomain",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) { s.PolicyName = "Not_A_Name" }),
	vapbCase("a paramRef name that is not a path segment", "spec.paramRef.name", "may not contain '/'",
		func(s *admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			s.ParamRef = paramRef("a/b", nil, ptr.To(admissionregistrationv1.DenyAction))
		}),
	policyStatusCase("a type-checking warning without text", "status.typeChecking.expressionWarnings[0].warning", "Required value",
		admissionregistrationv1.ExpressionWarning{FieldRef: "spec.validations[0].expression"}),
	policyStatusCase("a type-checking warning without fieldRef", "status.typeChecking.expressionWarnings[0].fieldRef", "Required value",
		admissionregistrationv1.ExpressionWarning{FieldRef: "  ", Warning: "w"}),
	policyStatusCase("a type-checking warning whose fieldRef is not a JSONPath", "status.typeChecking.expressionWarnings[0].fieldRef", "invalid JSONPath",
		admissionregistrationv1.ExpressionWarning{FieldRef: "spec.validations[", Warning: "w"}),
	policyStatusCase("a well-formed type-checking warning", "", "",
		admissionregistrationv1.ExpressionWarning{FieldRef: "spec.validations[0].expression", Warning: "w"}),

	mapCase("no matchConstraints", "spec.matchConstraints", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) { s.MatchConstraints = nil }),
	mapCase("matchConstraints without resourceRules", "spec.matchConstraints.resourceRules", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) { s.MatchConstraints.ResourceRules = nil }),
	mapCase("a mutation without patchType", "spec.mutations[0].patchType", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) { s.Mutations[0].PatchType = "" }),
	mapCase("patchType ApplyConfiguration without applyConfiguration", "spec.mutations[0].applyConfiguration", "must be specified when patchType is ApplyConfiguration",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) { s.Mutations[0].ApplyConfiguration = nil }),
	mapCase("patchType ApplyConfiguration with a jsonPatch too", "spec.mutations[0].jsonPatch", "must not be specified when patchType is ApplyConfiguration",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations[0].JSONPatch = &mutatingpolicy.JSONPatch{Expression: "[]"}
		}),
	mapCase("a blank applyConfiguration expression", "spec.mutations[0].applyConfiguration.expression", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations = []mutatingpolicy.Mutation{speckit.ApplyConfiguration("  ")}
		}),
	mapCase("a blank JSONPatch expression", "spec.mutations[0].jsonPatch.expression", "Required value",
		func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations = []mutatingpolicy.Mutation{speckit.JSONPatch("  ")}
		}),
	mapbCase("a policyName that is not a DNS subdomain", "spec.policyName", "RFC 1123 subdomain",
		func(s *mutatingpolicy.MutatingAdmissionPolicyBindingSpec) { s.PolicyName = "Not_A_Name" }),
}

func auditAnnotations(n int) []admissionregistrationv1.AuditAnnotation {
	out := make([]admissionregistrationv1.AuditAnnotation, n)
	for i := range out {
		out[i] = admissionregistrationv1.AuditAnnotation{Key: fmt.Sprintf("k%d", i), ValueExpression: "'v'"}
	}
	return out
}

// unnamedPolicyWithAuditAnnotation is a policy with no metadata.name: its
// auditAnnotation keys are checked as "<name>/<key>", so with no name the
// key itself is refused, besides the missing name.
func unnamedPolicyWithAuditAnnotation() policyCase {
	const field, detail = "spec.auditAnnotations[0].key", "requires metadata.name be non-empty"
	return policyCase{kind: "ValidatingAdmissionPolicy", name: "no metadata.name and an auditAnnotation", field: field, detail: detail,
		create: func(ctx context.Context, f *harness.Framework) error {
			_, err := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Labels: f.Labels()},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
					FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
					MatchConstraints: speckit.PolicyConfigMapRules(),
					AuditAnnotations: []admissionregistrationv1.AuditAnnotation{{Key: "reason", ValueExpression: "'a'"}},
				}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}}
}

// policyStatusCase writes warning to the status of a stored policy (a
// dry-run status update): status.typeChecking is the apiserver's own
// type-checking result, but a client may write it, and the API validates
// what it is given.
func policyStatusCase(name, field, detail string, warning admissionregistrationv1.ExpressionWarning) policyCase {
	return policyCase{kind: "ValidatingAdmissionPolicy", name: name + " in its status", field: field, detail: detail,
		create: func(ctx context.Context, f *harness.Framework) error {
			policies := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
			name := speckit.PolicyName(f, "status")
			return storeThenDryRun(ctx, policies, name, &admissionregistrationv1.ValidatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
					FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
					MatchConstraints: speckit.Scoped(f, speckit.PolicyConfigMapRules()),
					Validations:      []admissionregistrationv1.Validation{{Expression: "true", Message: "never fails"}},
				}}, func(ctx context.Context, current *admissionregistrationv1.ValidatingAdmissionPolicy) error {
				current.Status.TypeChecking = &admissionregistrationv1.TypeChecking{ExpressionWarnings: []admissionregistrationv1.ExpressionWarning{warning}}
				_, err := policies.UpdateStatus(ctx, current, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
				return err
			})
		}}
}
