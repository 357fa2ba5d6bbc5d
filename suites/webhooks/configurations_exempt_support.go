package webhooks

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// targetLabel marks the admission configuration objects the blocking
// webhooks and policies of the exemption specs are scoped to.
const targetLabel = "admission-conformance.io/exempt-target"

func exemptTargetSelector(f *harness.Framework) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{targetLabel: f.Namespace}}
}

// configurationKind is one admission configuration kind, with a spec that
// does nothing: a webhook configuration without webhooks, a policy without
// bindings, a binding of a policy that does not exist.
type configurationKind struct {
	resource string
	spec     func(f *harness.Framework) map[string]any
}

// The six kinds k8s.io/apiserver v0.37.2
// pkg/admission/plugin/webhook/predicates/rules IsExemptAdmissionConfigurationResource
// exempts from API-registered webhooks.
var (
	validatingWebhookConfigurations = configurationKind{resource: "validatingwebhookconfigurations"}
	mutatingWebhookConfigurations   = configurationKind{resource: "mutatingwebhookconfigurations"}
	validatingAdmissionPolicies     = configurationKind{resource: "validatingadmissionpolicies", spec: func(f *harness.Framework) map[string]any {
		return map[string]any{"matchConstraints": inertConstraints(f), "validations": []any{map[string]any{"expression": "true"}}}
	}}
	validatingAdmissionPolicyBindings = configurationKind{resource: "validatingadmissionpolicybindings", spec: func(f *harness.Framework) map[string]any {
		return map[string]any{"policyName": policyName(f, "no-such-policy"), "validationActions": []any{"Deny"}}
	}}
	mutatingAdmissionPolicies = configurationKind{resource: "mutatingadmissionpolicies", spec: func(f *harness.Framework) map[string]any {
		return map[string]any{"matchConstraints": inertConstraints(f), "reinvocationPolicy": "Never", "mutations": []any{map[string]any{
			"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": `Object{metadata: Object.metadata{annotations: {"inert": "yes"}}}`}}}}
	}}
	mutatingAdmissionPolicyBindings = configurationKind{resource: "mutatingadmissionpolicybindings", spec: func(f *harness.Framework) map[string]any {
		return map[string]any{"policyName": policyName(f, "no-such-policy")}
	}}
	configurationKinds = []configurationKind{validatingWebhookConfigurations, mutatingWebhookConfigurations, validatingAdmissionPolicies,
		validatingAdmissionPolicyBindings, mutatingAdmissionPolicies, mutatingAdmissionPolicyBindings}
)

// inertConstraints match configmap creates in the spec's namespace, which
// no policy of these specs is ever bound for.
func inertConstraints(f *harness.Framework) map[string]any {
	return map[string]any{
		"namespaceSelector": map[string]any{"matchLabels": map[string]any{corev1.LabelMetadataName: f.Namespace}},
		"resourceRules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"},
			"operations": []any{"CREATE"}, "resources": []any{"configmaps"}}},
	}
}

// create creates an object of kind labelled as a target, deleted after the
// case if it was stored.
func (k configurationKind) create(ctx context.Context, f *harness.Framework) (string, error) {
	labels := map[string]any{targetLabel: f.Namespace}
	for key, value := range f.Labels() {
		labels[key] = value
	}
	name := f.Namespace + "-target-" + k.resource
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": admissionregistrationv1.SchemeGroupVersion.String(),
		"metadata":   map[string]any{"name": name, "labels": labels},
	}}
	if k.spec != nil {
		obj.Object["spec"] = k.spec(f)
	}
	api := f.Dynamic.Resource(admissionregistrationv1.SchemeGroupVersion.WithResource(k.resource))
	if _, err := api.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return name, fmt.Errorf("create %s: %w", k.resource, err)
	}
	ginkgo.DeferCleanup(ignoreNotFound, func(ctx context.Context, name string, opts metav1.DeleteOptions) error {
		return api.Delete(ctx, name, opts)
	}, name)
	return name, nil
}

// lifecycle creates, updates (a merge patch) and deletes an object of kind
// labelled as a target, and returns the first error.
func (k configurationKind) lifecycle(ctx context.Context, f *harness.Framework) error {
	name, err := k.create(ctx, f)
	if err != nil {
		return err
	}
	api := f.Dynamic.Resource(admissionregistrationv1.SchemeGroupVersion.WithResource(k.resource))
	// A merge patch is an UPDATE to admission, and does not conflict with
	// the status the policy controller writes meanwhile.
	if _, err := api.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"annotations":{"updated":"yes"}}}`), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("update %s: %w", k.resource, err)
	}
	if err := api.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete %s: %w", k.resource, err)
	}
	return nil
}
