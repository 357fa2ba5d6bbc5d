package ordering

import (
	"context"
	"fmt"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
)

// Admission policies (CEL) have no marker hook of their own, so the specs
// prove them enforced the way RegisterMutating proves webhooks enforced: a
// dry-run probe ConfigMap, labelled as a marker (so no webhook under test
// sees it), that the spec's ValidatingAdmissionPolicy denies once it is in
// force and the probe satisfies ready.

// policyProbeMessage is what the ValidatingAdmissionPolicy answers a probe.
func policyProbeMessage(f *harness.Framework) string {
	return "admission-conformance policy probe for " + f.Namespace
}

// probeValue is the marker label value of probes. No webhook configuration
// has this name, so no marker hook denies probes.
func probeValue(f *harness.Framework) string { return f.Namespace + "-policy-probe" }

// isProbe is CEL that is true for probe objects.
func isProbe(f *harness.Framework) string {
	return fmt.Sprintf("(has(object.metadata.labels) && '%s' in object.metadata.labels && object.metadata.labels['%s'] == '%s')",
		harness.MarkerLabel, harness.MarkerLabel, probeValue(f))
}

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
// RegisterMutating and RegisterValidating send into the same namespace (their
// own probes excepted): those must reach the marker webhooks untouched.
func notHarnessMarker(f *harness.Framework) []admissionregistrationv1.MatchCondition {
	return []admissionregistrationv1.MatchCondition{{
		Name:       "not-a-harness-marker",
		Expression: fmt.Sprintf("!has(object.metadata.labels) || !('%s' in object.metadata.labels) || %s", harness.MarkerLabel, isProbe(f)),
	}}
}

func policyLabels(f *harness.Framework) map[string]string {
	return map[string]string{harness.RunLabel: f.Env.RunID, harness.SpecLabel: f.Spec.ShortName}
}

// createValidatingPolicy creates a ValidatingAdmissionPolicy and its Deny
// binding for configmaps in the spec's namespace, deleted after the case.
// Subjects (non-probes) must satisfy subject; probes are denied once they
// satisfy ready.
func createValidatingPolicy(ctx context.Context, f *harness.Framework, subject, subjectMessage, ready string) error {
	name := f.Namespace + "-validate"
	ar := f.Client.AdmissionregistrationV1()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: policyLabels(f)},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: policyMatch(f),
			MatchConditions:  notHarnessMarker(f),
			Validations: []admissionregistrationv1.Validation{
				{Expression: "!" + isProbe(f) + " || !(" + ready + ")", Message: policyProbeMessage(f)},
				{Expression: isProbe(f) + " || (" + subject + ")", Message: subjectMessage},
			},
		},
	}
	if _, err := ar.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create validating admission policy: %w", err)
	}
	deferDelete(ar.ValidatingAdmissionPolicies().Delete, name)
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: policyLabels(f)},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName: name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	if _, err := ar.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create validating admission policy binding: %w", err)
	}
	deferDelete(ar.ValidatingAdmissionPolicyBindings().Delete, name)
	return nil
}

// createMutatingPolicy creates a MutatingAdmissionPolicy applying the CEL
// JSONPatch expression patch to configmaps in the spec's namespace (probes
// included), and its binding, deleted after the case.
func createMutatingPolicy(ctx context.Context, f *harness.Framework, patch string) error {
	name := f.Namespace + "-mutate"
	policies, bindings := mutatingpolicy.PolicyClient(f.Dynamic), mutatingpolicy.BindingClient(f.Dynamic)
	policy := &mutatingpolicy.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: policyLabels(f)},
		Spec: mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			MatchConstraints:   policyMatch(f),
			MatchConditions:    notHarnessMarker(f),
			Mutations: []mutatingpolicy.Mutation{{
				PatchType: mutatingpolicy.PatchTypeJSONPatch,
				JSONPatch: &mutatingpolicy.JSONPatch{Expression: patch},
			}},
		},
	}
	if _, err := policies.Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create mutating admission policy: %w", err)
	}
	deferDelete(policies.Delete, name)
	binding := &mutatingpolicy.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: policyLabels(f)},
		Spec:       mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
	}
	if _, err := bindings.Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create mutating admission policy binding: %w", err)
	}
	deferDelete(bindings.Delete, name)
	return nil
}

// waitForPolicies returns once every apiserver replica denies a probe with
// the validating policy's probe message, that is once the policies the
// probe's ready condition depends on are all in force there.
func waitForPolicies(ctx context.Context, f *harness.Framework, since time.Time) error {
	_, err := enforce.OnEveryReplica(ctx, since, f.Replicas, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration,
		func(ctx context.Context, rc *rest.Config) (bool, error) {
			client, err := kubernetes.NewForConfig(rc)
			if err != nil {
				return false, err
			}
			probe := &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "policy-probe-", Labels: map[string]string{harness.MarkerLabel: probeValue(f)}},
				Data:       map[string]string{"probe": "true"},
			}
			_, err = client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			switch {
			case err == nil:
				return false, nil
			case (apierrors.IsInvalid(err) || apierrors.IsForbidden(err)) && strings.Contains(err.Error(), policyProbeMessage(f)):
				return true, nil
			default:
				return false, err
			}
		})
	if err != nil {
		return fmt.Errorf("admission policies of %s: %w", f.Namespace, err)
	}
	return nil
}
