package mutatingpolicies

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var mutatingPolicyMatching = spec.Spec{
	ShortName: "MutatingPolicyMatching",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy mutates only the requests its matchConstraints and its binding's matchResources " +
		"both select (resourceRules with resourceNames, minus excludeResourceRules by name and by scope, namespace and " +
		"object selector expressions), with the one param its binding's paramRef selects by namespace, labels and expressions.",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy.spec.matchConstraints; MutatingAdmissionPolicyBinding.spec.matchResources, paramRef",
}

var _ = harness.Describe(mutatingPolicyMatching, func(f *harness.Framework) {
	ginkgo.It("matchConstraints and the binding's matchResources select the objects, paramRef's selector the param", func(ctx ginkgo.SpecContext) {
		sel := newSelection(f)
		sel.createParams(ctx)
		s := mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			ParamKind:        speckit.ParamKindSA,
			MatchConstraints: sel.constraints(),
			Mutations: []mutatingpolicy.Mutation{speckit.ApplyConfiguration(
				`Object{metadata: Object.metadata{labels: {"mutated": string(params.metadata.annotations["forbidden"])}}}`)},
		}
		binding := mutatingpolicy.MutatingAdmissionPolicyBindingSpec{ParamRef: sel.paramRef(), MatchResources: sel.bindingResources()}
		gomega.Expect(speckit.MAPWith(ctx, f, "matching", s, binding)).To(gomega.Succeed())
		sel.check(ctx, f.Client, func(name string, cm *corev1.ConfigMap, err error) bool {
			gomega.ExpectWithOffset(2, err).NotTo(gomega.HaveOccurred(), "create %s", name)
			if cm.Labels["mutated"] == "" {
				return false
			}
			gomega.ExpectWithOffset(2, cm.Labels).To(gomega.HaveKeyWithValue("mutated", "from-param-one"), "%s: mutated with the one param the selector picks", name)
			return true
		})
	})
})

// selection is the matching both policy kinds are checked with: the
// policy's matchConstraints and the binding's matchResources each select
// by resourceNames, exclude by name and (not) by scope and skip by object
// selector expressions; the binding's paramRef selector picks param-one
// of three by labels and an expression.
type selection struct{ f *harness.Framework }

func newSelection(f *harness.Framework) selection { return selection{f} }

var selectionNamed = []string{"applied", "excluded-by-policy", "excluded-by-binding", "cluster-exclusion", "skip-policy", "skip-binding"}

func (sel selection) createParams(ctx context.Context) {
	for name, labels := range map[string]map[string]string{
		"param-one":   {"param": "selected", "tier": "one"},
		"param-two":   {"param": "selected", "tier": "two"},
		"param-three": {"param": "other", "tier": "one"},
	} {
		_, err := sel.f.Client.CoreV1().ServiceAccounts(sel.f.Namespace).Create(ctx, speckit.ParamSA(sel.f.Namespace, name, "from-"+name, labels), metav1.CreateOptions{})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	}
}

func configMapsNamed(scope admissionregistrationv1.ScopeType, names ...string) admissionregistrationv1.NamedRuleWithOperations {
	r := speckit.Rule("", "configmaps", admissionregistrationv1.Create)
	r.ResourceNames = names
	if scope != "" {
		r.Scope = ptr.To(scope)
	}
	return r
}

func (sel selection) inNamespace() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{sel.f.Namespace}}}}
}

func notSkippedBy(by string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "skip", Operator: metav1.LabelSelectorOpNotIn, Values: []string{by}},
		{Key: speckit.PolicyProbeLabel, Operator: metav1.LabelSelectorOpDoesNotExist}}}
}

// constraints are the policy's: a Cluster-scoped exclusion does not
// exclude a namespaced object.
func (sel selection) constraints() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{configMapsNamed("", selectionNamed...)},
		ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{
			configMapsNamed(admissionregistrationv1.NamespacedScope, "excluded-by-policy"),
			configMapsNamed(admissionregistrationv1.ClusterScope, "cluster-exclusion"),
		},
		NamespaceSelector: sel.inNamespace(),
		ObjectSelector:    notSkippedBy("policy"),
	}
}

func (sel selection) bindingResources() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{
		ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{configMapsNamed(admissionregistrationv1.NamespacedScope, selectionNamed...)},
		ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{
			configMapsNamed(admissionregistrationv1.AllScopes, "excluded-by-binding"),
			configMapsNamed(admissionregistrationv1.ClusterScope, "cluster-exclusion"),
		},
		MatchPolicy:       ptr.To(admissionregistrationv1.Exact),
		NamespaceSelector: sel.inNamespace(),
		ObjectSelector:    notSkippedBy("binding"),
	}
}

func (sel selection) paramRef() *admissionregistrationv1.ParamRef {
	return &admissionregistrationv1.ParamRef{
		Namespace: sel.f.Namespace,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"param": "selected"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"one"}}}},
		ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction),
	}
}

// check creates each object and asks applied whether the policy acted on
// it (applied asserts how): only "applied" and "cluster-exclusion" may be.
func (sel selection) check(ctx context.Context, client kubernetes.Interface, applied func(name string, cm *corev1.ConfigMap, err error) bool) {
	for name, skip := range map[string]string{
		"applied":             "",
		"cluster-exclusion":   "", // excluded by rules scoped to Cluster only
		"excluded-by-policy":  "", // the policy's excludeResourceRules by name
		"excluded-by-binding": "", // the binding's excludeResourceRules by name
		"skip-policy":         "policy",
		"skip-binding":        "binding",
		"not-named":           "", // in neither resourceRules' resourceNames
	} {
		cm := speckit.ConfigMap(sel.f, name, map[string]string{"k": "v"})
		if skip != "" {
			cm.Labels = map[string]string{"skip": skip}
		}
		got, err := client.CoreV1().ConfigMaps(sel.f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		want := name == "applied" || name == "cluster-exclusion"
		gomega.ExpectWithOffset(1, applied(name, got, err)).To(gomega.Equal(want), "%s: the policy must apply: %v", name, want)
	}
}

var policyBindingSelection = spec.Spec{
	ShortName: "PolicyBindingSelection",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy validates only the requests its matchConstraints and its binding's matchResources " +
		"both select (resourceRules with resourceNames, minus excludeResourceRules by name and by scope, namespace and " +
		"object selector expressions), with the one param its binding's paramRef selects by namespace, labels and expressions.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.matchConstraints; ValidatingAdmissionPolicyBinding.spec.matchResources, paramRef",
}

var _ = harness.Describe(policyBindingSelection, func(f *harness.Framework) {
	ginkgo.It("matchConstraints and the binding's matchResources select the objects, paramRef's selector the param", func(ctx ginkgo.SpecContext) {
		sel := newSelection(f)
		sel.createParams(ctx)
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			ParamKind:        speckit.ParamKindSA,
			MatchConstraints: sel.constraints(),
			Validations: []admissionregistrationv1.Validation{{Expression: "false",
				MessageExpression: `"denied with " + string(params.metadata.annotations["forbidden"])`}},
		}
		// Warn, not Deny: each param a binding evaluates a failed validation
		// with gives a warning of its own, so a second param selected shows.
		binding := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}, ParamRef: sel.paramRef(), MatchResources: sel.bindingResources()}
		gomega.Expect(speckit.VAPWith(ctx, f, "selection", s, binding)).To(gomega.Succeed())
		client, warned := speckit.WarningClient(f)
		sel.check(ctx, client, func(name string, _ *corev1.ConfigMap, err error) bool {
			gomega.ExpectWithOffset(2, err).NotTo(gomega.HaveOccurred(), "create %s: a Warn binding admits", name)
			texts := warned.Take()
			if len(texts) == 0 {
				return false
			}
			gomega.ExpectWithOffset(2, texts).To(gomega.ConsistOf(gomega.ContainSubstring("denied with from-param-one")),
				"%s: one warning, from the one param the selector picks", name)
			return true
		})
	})
})
