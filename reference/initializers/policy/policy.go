// Package policy is the reference implementation's ValidatingAdmissionPolicy
// that lets InitializerConfigurations be created fail-open only (seed 002:
// "We only allow initializers/webhooks to be created as 'fail open' [...]
// They can upgrade themselves to 'fail closed' via the normal Update
// operation"). The CRD defaults failurePolicy to Ignore before admission, so
// an omitted policy is fail-open.
package policy

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// Message starts the denial of a configuration created with a Fail
// initializer.
const Message = "initializers must be created fail-open (failurePolicy Ignore) and may be updated to Fail later"

// Policy returns the policy, labelled with labels.
func Policy(labels map[string]string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PolicyName, Labels: labels},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{v1alpha1.Group}, APIVersions: []string{"*"},
							Resources: []string{v1alpha1.Resource}},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "!has(object.initializers) || object.initializers.all(i, !has(i.failurePolicy) || i.failurePolicy == 'Ignore')",
				MessageExpression: "'" + Message + ": ' + object.initializers.filter(i, has(i.failurePolicy) && i.failurePolicy != 'Ignore')" +
					".map(i, i.name + ' has ' + i.failurePolicy).join(', ')",
				Reason: ptr.To(metav1.StatusReasonForbidden),
			}},
		},
	}
}

// Binding returns the binding that puts the policy in force everywhere.
func Binding(labels map[string]string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PolicyName, Labels: labels},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        v1alpha1.PolicyName,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
}
