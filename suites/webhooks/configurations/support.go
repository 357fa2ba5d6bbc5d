package configurations

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
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
		return map[string]any{"policyName": speckit.PolicyName(f, "no-such-policy"), "validationActions": []any{"Deny"}}
	}}
	mutatingAdmissionPolicies = configurationKind{resource: "mutatingadmissionpolicies", spec: func(f *harness.Framework) map[string]any {
		return map[string]any{"matchConstraints": inertConstraints(f), "reinvocationPolicy": "Never", "mutations": []any{map[string]any{
			"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{"expression": `Object{metadata: Object.metadata{annotations: {"inert": "yes"}}}`}}}}
	}}
	mutatingAdmissionPolicyBindings = configurationKind{resource: "mutatingadmissionpolicybindings", spec: func(f *harness.Framework) map[string]any {
		return map[string]any{"policyName": speckit.PolicyName(f, "no-such-policy")}
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
	ginkgo.DeferCleanup(speckit.IgnoreNotFound, func(ctx context.Context, name string, opts metav1.DeleteOptions) error {
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

func inNamespace(f *harness.Framework) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}}
}

// probe returns a dry-run probe whose outcome enforced judges.
func probe(f *harness.Framework, label string, enforced func(error) bool) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		_, err := speckit.DryRunCreate(ctx, rc, f.Namespace, label)
		if err != nil && !apierrors.IsForbidden(err) && !apierrors.IsInternalError(err) {
			return false, err // neither allowed nor an admission answer
		}
		return enforced(err), nil
	}
}

// propagationConfig is a webhook configuration of either phase with a gate
// hook (denies its probe), a broken hook (unreachable, policy under test)
// and any extra hooks.
type propagationConfig struct {
	name, namespace string
	labels          map[string]string
	gate, broken    admissionregistrationv1.ValidatingWebhook
	extra           []admissionregistrationv1.ValidatingWebhook
}

// clone returns a copy sharing nothing with c.
func (c *propagationConfig) clone() propagationConfig {
	out := *c
	out.gate, out.broken = *c.gate.DeepCopy(), *c.broken.DeepCopy()
	out.extra = nil
	for _, h := range c.extra {
		out.extra = append(out.extra, *h.DeepCopy())
	}
	return out
}

// hooks returns the configuration's hooks, scoped to the namespace and
// with the v1 defaults a case did not set.
func (c *propagationConfig) hooks() []admissionregistrationv1.ValidatingWebhook {
	out := append([]admissionregistrationv1.ValidatingWebhook{c.gate, c.broken}, c.extra...)
	for i := range out {
		if out[i].NamespaceSelector == nil {
			out[i].NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: c.namespace}}
		}
		out[i].SideEffects = ptr.To(admissionregistrationv1.SideEffectClassNone)
		if len(out[i].AdmissionReviewVersions) == 0 {
			out[i].AdmissionReviewVersions = []string{"v1"}
		}
		if out[i].FailurePolicy == nil {
			out[i].FailurePolicy = ptr.To(admissionregistrationv1.Fail)
		}
	}
	return out
}

func (c *propagationConfig) create(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase) error {
	ar := f.Client.AdmissionregistrationV1()
	meta := metav1.ObjectMeta{Name: c.name, Labels: c.labels}
	if phase == fakewebhook.Mutating {
		_, err := ar.MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: meta, Webhooks: mutatingHooks(c.hooks())}, metav1.CreateOptions{})
		if err == nil {
			ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.MutatingWebhookConfigurations().Delete, c.name)
		}
		return err
	}
	_, err := ar.ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: meta, Webhooks: c.hooks()}, metav1.CreateOptions{})
	if err == nil {
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.ValidatingWebhookConfigurations().Delete, c.name)
	}
	return err
}

func (c *propagationConfig) update(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase) error {
	ar := f.Client.AdmissionregistrationV1()
	if phase == fakewebhook.Mutating {
		cur, err := ar.MutatingWebhookConfigurations().Get(ctx, c.name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Webhooks = mutatingHooks(c.hooks())
		_, err = ar.MutatingWebhookConfigurations().Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}
	cur, err := ar.ValidatingWebhookConfigurations().Get(ctx, c.name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	cur.Webhooks = c.hooks()
	_, err = ar.ValidatingWebhookConfigurations().Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

func (c *propagationConfig) delete(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase) error {
	ar := f.Client.AdmissionregistrationV1()
	if phase == fakewebhook.Mutating {
		return ar.MutatingWebhookConfigurations().Delete(ctx, c.name, metav1.DeleteOptions{})
	}
	return ar.ValidatingWebhookConfigurations().Delete(ctx, c.name, metav1.DeleteOptions{})
}

// mutatingHooks turns validating webhook definitions into mutating ones with
// the same fields (the two types share every field a spec sets here).
func mutatingHooks(in []admissionregistrationv1.ValidatingWebhook) []admissionregistrationv1.MutatingWebhook {
	out := make([]admissionregistrationv1.MutatingWebhook, len(in))
	for i, h := range in {
		out[i] = admissionregistrationv1.MutatingWebhook{
			Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy,
			MatchPolicy: h.MatchPolicy, NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector,
			SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds, AdmissionReviewVersions: h.AdmissionReviewVersions,
			MatchConditions: h.MatchConditions,
		}
	}
	return out
}

// policyCase is one policy or binding the apiserver must refuse (field set)
// or accept (field empty). Compile errors, non-bool validations, reasons
// and Deny with Warn are PolicyFailurePolicy's and PolicyValidationActions'.
type policyCase struct {
	kind, name    string
	create        func(ctx context.Context, f *harness.Framework) error
	field, detail string
}

func vapCase(name, field, detail string, edit func(*admissionregistrationv1.ValidatingAdmissionPolicySpec)) policyCase {
	return vapCaseNamed(name, "", field, detail, edit)
}

// vapCaseNamed is vapCase for a policy named object (the case's own name
// if empty): validation checks some fields against the policy's name.
func vapCaseNamed(name, object, field, detail string, edit func(*admissionregistrationv1.ValidatingAdmissionPolicySpec)) policyCase {
	return policyCase{kind: "ValidatingAdmissionPolicy", name: name, field: field, detail: detail,
		create: func(ctx context.Context, f *harness.Framework) error {
			objectName := object
			if objectName == "" {
				objectName = speckit.PolicyName(f, "case")
			}
			s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: speckit.PolicyConfigMapRules(),
				Validations:      []admissionregistrationv1.Validation{{Expression: "true", Message: "never fails"}},
			}
			edit(&s)
			_, err := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: objectName, Labels: f.Labels()}, Spec: s}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}}
}

func vapbCase(name, field, detail string, edit func(*admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec)) policyCase {
	return policyCase{kind: "ValidatingAdmissionPolicyBinding", name: name, field: field, detail: detail,
		create: func(ctx context.Context, f *harness.Framework) error {
			s := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, "case"), ValidationActions: speckit.DenyAction()}
			edit(&s)
			return dryRunBinding(ctx, f, s)
		}}
}

// dryRunBinding sends a dry-run create of the case's binding.
func dryRunBinding(ctx context.Context, f *harness.Framework, s admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) error {
	_, err := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "case"), Labels: f.Labels()}, Spec: s}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

func mapCase(name, field, detail string, edit func(*mutatingpolicy.MutatingAdmissionPolicySpec)) policyCase {
	return policyCase{kind: "MutatingAdmissionPolicy", name: name, field: field, detail: detail,
		create: func(ctx context.Context, f *harness.Framework) error {
			s := mutatingpolicy.MutatingAdmissionPolicySpec{
				FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
				MatchConstraints:   speckit.PolicyConfigMapRules(),
				ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
				Mutations:          []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`)},
			}
			edit(&s)
			_, err := mutatingpolicy.PolicyClient(f.Dynamic).Create(ctx, &mutatingpolicy.MutatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "case"), Labels: f.Labels()}, Spec: s}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}}
}

func mapbCase(name, field, detail string, edit func(*mutatingpolicy.MutatingAdmissionPolicyBindingSpec)) policyCase {
	return policyCase{kind: "MutatingAdmissionPolicyBinding", name: name, field: field, detail: detail,
		create: func(ctx context.Context, f *harness.Framework) error {
			s := mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, "case")}
			edit(&s)
			_, err := mutatingpolicy.BindingClient(f.Dynamic).Create(ctx, &mutatingpolicy.MutatingAdmissionPolicyBinding{
				ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "case"), Labels: f.Labels()}, Spec: s}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}}
}

func paramRef(name string, selector *metav1.LabelSelector, action *admissionregistrationv1.ParameterNotFoundActionType) *admissionregistrationv1.ParamRef {
	return &admissionregistrationv1.ParamRef{Name: name, Selector: selector, ParameterNotFoundAction: action}
}

// registerConfigurationBlocker registers a webhook denying every request on
// the six admission configuration kinds labelled for this spec. The blocker
// itself does not carry the label, so even an apiserver that wrongly calls
// it for configurations can still delete it.
func registerConfigurationBlocker(ctx ginkgo.SpecContext, f *harness.Framework, phase fakewebhook.Phase) harness.RegisteredHook {
	resources := make([]string, 0, len(configurationKinds))
	for _, k := range configurationKinds {
		resources = append(resources, k.resource)
	}
	reg, err := speckit.Register(ctx, f, phase, harness.Hook{
		Name:      "blocker",
		Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "the blocker denies this"},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{admissionregistrationv1.GroupName}, APIVersions: []string{"*"},
				Resources: resources, Scope: ptr.To(admissionregistrationv1.ClusterScope)},
		}},
		// Configurations are cluster-scoped: scope by their labels.
		NamespaceSelector: &metav1.LabelSelector{},
		ObjectSelector:    exemptTargetSelector(f),
	})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return reg.Hooks["blocker"]
}

// blockerDenies is the message of the policy blocking configurations.
const blockerDenies = "the blocking policy denies this"

// registerPolicyBlocker binds a policy failing every request on the six
// admission configuration kinds labelled for this spec, and waits until it
// is enforced. Neither the policy nor its binding carries the label.
func registerPolicyBlocker(ctx context.Context, f *harness.Framework) {
	resources := make([]string, 0, len(configurationKinds))
	for _, k := range configurationKinds {
		resources = append(resources, k.resource)
	}
	rules := []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{admissionregistrationv1.GroupName}, APIVersions: []string{"*"}, Resources: resources},
	}}}
	name := speckit.PolicyName(f, "blocker")
	gomega.ExpectWithOffset(1, speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: rules, ObjectSelector: exemptTargetSelector(f)},
			Validations:      []admissionregistrationv1.Validation{{Expression: "false", Message: blockerDenies}},
		}})).To(gomega.Succeed())
	gomega.ExpectWithOffset(1, speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			// Configurations are cluster-scoped: scope by their labels.
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: exemptTargetSelector(f)}},
	})).To(gomega.Succeed())
	gomega.ExpectWithOffset(1, speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())
}
