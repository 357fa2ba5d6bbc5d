package ordering

import (
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// Admission policies (CEL) have no marker hook of their own: the specs prove
// them enforced with the probe every suite uses (speckit.AwaitMAPs,
// speckit.AwaitVAPs): a probe policy of each kind created after the case's
// policies, acting on probe objects alone, that every replica must enforce
// within the policy propagation bound. The case's bindings never match the
// probes.

// policyMatch matches creates and updates of configmaps in the spec's
// namespace.
func policyMatch(f *harness.Framework) *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}},
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: ops(opCreate, opUpdate),
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"},
				Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
		}}},
	}
}

// notHarnessMarker keeps the policies away from the marker requests
// RegisterMutating and RegisterValidating send into the same namespace:
// those must reach the marker webhooks untouched.
func notHarnessMarker() []admissionregistrationv1.MatchCondition {
	return []admissionregistrationv1.MatchCondition{{
		Name:       "not-a-harness-marker",
		Expression: fmt.Sprintf("!has(object.metadata.labels) || !('%s' in object.metadata.labels)", harness.MarkerLabel),
	}}
}

// createValidatingPolicy creates a ValidatingAdmissionPolicy and its Deny
// binding for configmaps in the spec's namespace, deleted after the case:
// objects must satisfy subject. It does not wait (waitForPolicies).
func createValidatingPolicy(ctx context.Context, f *harness.Framework, subject, subjectMessage string) error {
	return speckit.VAPAndBinding(ctx, f, "validate", admissionregistrationv1.ValidatingAdmissionPolicySpec{
		FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
		MatchConstraints: policyMatch(f),
		MatchConditions:  notHarnessMarker(),
		Validations:      []admissionregistrationv1.Validation{{Expression: subject, Message: subjectMessage}},
	}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
		ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
	})
}

// createMutatingPolicy creates a MutatingAdmissionPolicy applying the CEL
// JSONPatch expression patch to configmaps in the spec's namespace, and its
// binding, deleted after the case. It does not wait (waitForPolicies).
func createMutatingPolicy(ctx context.Context, f *harness.Framework, patch string) error {
	return speckit.MAPAndBinding(ctx, f, "mutate", mutatingpolicy.MutatingAdmissionPolicySpec{
		FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
		ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
		MatchConstraints:   policyMatch(f),
		MatchConditions:    notHarnessMarker(),
		Mutations: []mutatingpolicy.Mutation{{
			PatchType: mutatingpolicy.PatchTypeJSONPatch,
			JSONPatch: &mutatingpolicy.JSONPatch{Expression: patch},
		}},
	}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})
}

// waitForPolicies returns once every apiserver replica enforces the case's
// policies: the mutating ones (if mutating) proved by the mutating probe,
// then the validating ones by the validating probe.
func waitForPolicies(ctx context.Context, f *harness.Framework, mutating bool) error {
	if mutating {
		if err := speckit.AwaitMAPs(ctx, f, false); err != nil {
			return err
		}
	}
	return speckit.AwaitVAPs(ctx, f)
}
