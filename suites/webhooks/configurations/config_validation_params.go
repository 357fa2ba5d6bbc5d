package configurations

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// paramsReferenceCases: a policy's CEL expressions may refer to params only
// when the policy has a paramKind. For every expression field of both
// policy kinds, the same expression is refused as an undeclared reference
// without a paramKind and accepted with one: each field's compiler gets
// the params declaration from the paramKind, not from anything else.
var paramsReferenceCases = func() []policyCase {
	const undeclared = "undeclared reference to 'params'"
	configMapParams := &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	var out []policyCase
	vap := []struct {
		name, field string
		edit        func(*admissionregistrationv1.ValidatingAdmissionPolicySpec)
	}{
		{"a validation expression", "spec.validations[0].expression", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Expression = "params.data.allowed == 'yes'"
		}},
		{"a messageExpression", "spec.validations[0].messageExpression", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].MessageExpression = "'refused: ' + params.data.reason"
		}},
		{"an auditAnnotation valueExpression", "spec.auditAnnotations[0].valueExpression", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "reason", ValueExpression: "'from ' + params.data.reason"}}
		}},
		{"a matchCondition", "spec.matchConditions[0].expression", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "enabled", Expression: "params.data.enabled == 'yes'"}}
		}},
		{"a variable", "spec.variables[0].expression", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Name: "reason", Expression: "params.data.reason"}}
		}},
	}
	for _, c := range vap {
		out = append(out,
			vapCase(c.name+" referring to params without a paramKind", c.field, undeclared, c.edit),
			vapCase(c.name+" referring to params with a paramKind", "", "", func(s *admissionregistrationv1.ValidatingAdmissionPolicySpec) {
				c.edit(s)
				s.ParamKind = configMapParams
			}))
	}
	mapCases := []struct {
		name, field string
		edit        func(*mutatingpolicy.MutatingAdmissionPolicySpec)
	}{
		{"an applyConfiguration expression", "spec.mutations[0].applyConfiguration.expression", func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations = []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{metadata: Object.metadata{labels: {"a": params.data.value}}}`)}
		}},
		{"a JSONPatch expression", "spec.mutations[0].jsonPatch.expression", func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Mutations = []mutatingpolicy.Mutation{speckit.JSONPatch(`[JSONPatch{op: "add", path: "/metadata/labels/a", value: params.data.value}]`)}
		}},
		{"a matchCondition", "spec.matchConditions[0].expression", func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "enabled", Expression: "params.data.enabled == 'yes'"}}
		}},
		{"a variable", "spec.variables[0].expression", func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
			s.Variables = []admissionregistrationv1.Variable{{Name: "value", Expression: "params.data.value"}}
		}},
	}
	for _, c := range mapCases {
		out = append(out,
			mapCase(c.name+" referring to params without a paramKind", c.field, undeclared, c.edit),
			mapCase(c.name+" referring to params with a paramKind", "", "", func(s *mutatingpolicy.MutatingAdmissionPolicySpec) {
				c.edit(s)
				s.ParamKind = configMapParams
			}))
	}
	return out
}()
