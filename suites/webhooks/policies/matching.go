package policies

import (
	"context"
	"net/http"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyMatching = spec.Spec{
	ShortName: "PolicyMatching",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy applies only to requests its matchConstraints (resourceRules minus " +
		"excludeResourceRules, operations, namespace and object selectors, matchPolicy) and its matchConditions select, " +
		"and that its binding's matchResources select.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.matchConstraints, matchConditions; binding spec.matchResources",
}

var _ = harness.Describe(policyMatching, func(f *harness.Framework) {
	cms := func() interface {
		Create(context.Context, *corev1.ConfigMap, metav1.CreateOptions) (*corev1.ConfigMap, error)
	} {
		return f.Client.CoreV1().ConfigMaps(f.Namespace)
	}
	expectMatched := func(err error, suffix, what string) {
		gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "the policy must apply to %s", what)
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, suffix, "matched"))
	}
	labelled := func(name string, labels map[string]string) *corev1.ConfigMap {
		cm := speckit.ConfigMap(f, name, map[string]string{"k": "v"})
		cm.Labels = labels
		return cm
	}
	gated := map[string]string{"tier": "gated"}
	bind := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()}

	ginkgo.It("resourceRules minus excludeResourceRules (by resource and by resourceNames), and operations", func(ctx ginkgo.SpecContext) {
		excluded := speckit.Rule("", "configmaps", admissionregistrationv1.Create)
		excluded.ResourceNames = []string{"excluded-by-name"}
		mr := &admissionregistrationv1.MatchResources{
			ResourceRules:        []admissionregistrationv1.NamedRuleWithOperations{speckit.Rule("", "configmaps", admissionregistrationv1.Create), speckit.Rule("", "secrets", admissionregistrationv1.Create)},
			ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{speckit.Rule("", "secrets", admissionregistrationv1.Create), excluded},
		}
		existing, err := cms().Create(ctx, labelled("existing", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(speckit.VAPWith(ctx, f, "rules", speckit.AlwaysDenies(mr), bind)).To(gomega.Succeed())
		_, err = cms().Create(ctx, labelled("matched", nil), metav1.CreateOptions{})
		expectMatched(err, "rules", "a configmap create")
		_, err = cms().Create(ctx, labelled("excluded-by-name", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "excludeResourceRules with resourceNames must exclude that configmap")
		_, err = f.Client.CoreV1().Secrets(f.Namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "excluded"}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "excludeResourceRules must exclude secrets")
		existing.Data["k"] = "changed"
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, existing, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "rules for CREATE only must not apply to UPDATE")
		_, err = f.Client.CoreV1().Pods(f.Namespace).Create(ctx, speckit.PendingPod(f.Namespace, "unmatched"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a resource outside resourceRules must not be matched")
	})

	ginkgo.It("resourceNames and scope in resourceRules, and selector expressions and rules in policy and binding", func(ctx ginkgo.SpecContext) {
		// Several policies, then one wait until every replica enforces them.
		vap := func(suffix string, spec admissionregistrationv1.ValidatingAdmissionPolicySpec, b admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec) {
			gomega.ExpectWithOffset(1, speckit.VAPAndBinding(ctx, f, suffix, spec, b)).To(gomega.Succeed())
		}
		named := speckit.Rule("", "configmaps", admissionregistrationv1.Create)
		named.ResourceNames = []string{"named"}
		vap("names", speckit.AlwaysDenies(&admissionregistrationv1.MatchResources{
			ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{named}}), bind)
		for _, scope := range []admissionregistrationv1.ScopeType{admissionregistrationv1.ClusterScope, admissionregistrationv1.NamespacedScope} {
			r := speckit.Rule("", "configmaps", admissionregistrationv1.Create)
			r.Scope = ptr.To(scope)
			vap("scope-"+strings.ToLower(string(scope)), speckit.AlwaysDenies(&admissionregistrationv1.MatchResources{
				ResourceRules:  []admissionregistrationv1.NamedRuleWithOperations{r},
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"scope": string(scope)}}}), bind)
		}
		expr := func(key string, op metav1.LabelSelectorOperator, values ...string) *metav1.LabelSelector {
			return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}
		}
		byName := expr(corev1.LabelMetadataName, metav1.LabelSelectorOpIn, f.Namespace)
		excludedByBinding := speckit.Rule("", "configmaps", admissionregistrationv1.Create)
		excludedByBinding.ResourceNames = []string{"excluded-by-binding"}
		tiers := speckit.PolicyConfigMapRules()
		tiers.NamespaceSelector, tiers.ObjectSelector = byName, expr("tier", metav1.LabelSelectorOpIn, "gold", "silver")
		vap("expressions", speckit.AlwaysDenies(tiers), admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: speckit.DenyAction(),
			MatchResources: &admissionregistrationv1.MatchResources{
				NamespaceSelector:    expr(corev1.LabelMetadataName, metav1.LabelSelectorOpExists),
				ObjectSelector:       expr("tier", metav1.LabelSelectorOpNotIn, "silver"),
				ResourceRules:        []admissionregistrationv1.NamedRuleWithOperations{speckit.Rule("", "configmaps", admissionregistrationv1.Create)},
				ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{excludedByBinding},
			}})
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())

		_, err := cms().Create(ctx, labelled("named", nil), metav1.CreateOptions{})
		expectMatched(err, "names", "the configmap its resourceNames name")
		_, err = cms().Create(ctx, labelled("unnamed", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a rule with resourceNames must not apply to an object it does not name")
		_, err = cms().Create(ctx, labelled("scope-namespaced", map[string]string{"scope": "Namespaced"}), metav1.CreateOptions{})
		expectMatched(err, "scope-namespaced", "a configmap, under a rule of scope Namespaced")
		_, err = cms().Create(ctx, labelled("scope-cluster", map[string]string{"scope": "Cluster"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a rule of scope Cluster must not apply to a namespaced configmap")
		_, err = cms().Create(ctx, labelled("gold", map[string]string{"tier": "gold"}), metav1.CreateOptions{})
		expectMatched(err, "expressions", "an object both the policy's In and the binding's NotIn select")
		_, err = cms().Create(ctx, labelled("silver", map[string]string{"tier": "silver"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the binding's objectSelector NotIn silver must exclude a silver object the policy selects")
		_, err = cms().Create(ctx, labelled("bronze", map[string]string{"tier": "bronze"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the policy's objectSelector In gold, silver must exclude a bronze object")
		_, err = cms().Create(ctx, labelled("excluded-by-binding", map[string]string{"tier": "gold"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the binding's excludeResourceRules (by resourceNames) must exclude that object")
	})

	ginkgo.It("matchConditions: only requests every condition holds for are validated", func(ctx ginkgo.SpecContext) {
		s := speckit.AlwaysDenies(nil)
		s.MatchConditions = []admissionregistrationv1.MatchCondition{
			{Name: "labelled", Expression: "has(object.metadata.labels) && 'tier' in object.metadata.labels"},
			{Name: "gated", Expression: "object.metadata.labels['tier'] == 'gated'"},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "conditions", s, bind)).To(gomega.Succeed())
		_, err := cms().Create(ctx, labelled("unlabelled", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a false matchCondition must skip the policy (the second would error)")
		_, err = cms().Create(ctx, labelled("open", map[string]string{"tier": "open"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "one false matchCondition must skip the policy")
		_, err = cms().Create(ctx, labelled("gated", gated), metav1.CreateOptions{})
		expectMatched(err, "conditions", "an object every matchCondition holds for")
	})

	for _, tc := range []struct {
		name         string
		policy, bind func(*harness.Framework) *admissionregistrationv1.MatchResources
	}{
		{"policy objectSelector", func(*harness.Framework) *admissionregistrationv1.MatchResources {
			mr := speckit.PolicyConfigMapRules()
			mr.ObjectSelector = &metav1.LabelSelector{MatchLabels: gated}
			return mr
		}, nil},
		{"binding objectSelector", nil, func(*harness.Framework) *admissionregistrationv1.MatchResources {
			return &admissionregistrationv1.MatchResources{ObjectSelector: &metav1.LabelSelector{MatchLabels: gated}}
		}},
	} {
		ginkgo.It(tc.name+": applies to selected objects only", func(ctx ginkgo.SpecContext) {
			var mr, bmr *admissionregistrationv1.MatchResources
			if tc.policy != nil {
				mr = speckit.Scoped(f, tc.policy(f))
			}
			b := bind
			if tc.bind != nil {
				bmr = tc.bind(f)
				b.MatchResources = bmr
			}
			gomega.Expect(speckit.VAPWith(ctx, f, "selectors", speckit.AlwaysDenies(mr), b)).To(gomega.Succeed())
			_, err := cms().Create(ctx, labelled("open", map[string]string{"tier": "open"}), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the %s must exclude an object it does not select", tc.name)
			_, err = cms().Create(ctx, labelled("gated", gated), metav1.CreateOptions{})
			expectMatched(err, "selectors", "an object the "+tc.name+" selects")
		})
	}

	ginkgo.It("namespaceSelector of policy and of binding exclude namespaces they do not select", func(ctx ginkgo.SpecContext) {
		elsewhere := &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace + "-elsewhere"}}
		mr := speckit.PolicyConfigMapRules()
		mr.NamespaceSelector = elsewhere
		mr.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"case": "policy"}}
		gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "ns-policy")},
			Spec: speckit.AlwaysDenies(mr)})).To(gomega.Succeed())
		gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "ns-policy")},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, "ns-policy"), ValidationActions: speckit.DenyAction()}})).To(gomega.Succeed())
		gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "ns-binding")},
			Spec: speckit.AlwaysDenies(nil)})).To(gomega.Succeed())
		gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "ns-binding")},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, "ns-binding"), ValidationActions: speckit.DenyAction(),
				MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: elsewhere,
					ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"case": "binding"}}}}})).To(gomega.Succeed())
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())
		for _, c := range []string{"policy", "binding"} {
			_, err := cms().Create(ctx, labelled(c, map[string]string{"case": c}), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the %s's namespaceSelector must exclude the spec's namespace", c)
		}
	})

	for _, tc := range []struct {
		policy  admissionregistrationv1.MatchPolicyType
		matched bool
	}{{admissionregistrationv1.Equivalent, true}, {admissionregistrationv1.Exact, false}} {
		ginkgo.It("matchPolicy "+string(tc.policy)+": a rule for autoscaling/v1 and a request through autoscaling/v2", func(ctx ginkgo.SpecContext) {
			mr := &admissionregistrationv1.MatchResources{MatchPolicy: ptr.To(tc.policy), ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"autoscaling"}, APIVersions: []string{"v1"}, Resources: []string{"horizontalpodautoscalers"}}},
			}}}
			gomega.Expect(speckit.VAPWith(ctx, f, "matchpolicy", speckit.AlwaysDenies(mr), bind)).To(gomega.Succeed())
			hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "hpa"}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "none"}, MaxReplicas: 2}}
			_, err := f.Client.AutoscalingV2().HorizontalPodAutoscalers(f.Namespace).Create(ctx, hpa, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if tc.matched {
				expectMatched(err, "matchpolicy", "an autoscaling/v2 request under matchPolicy Equivalent")
			} else {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "matchPolicy Exact must not match an autoscaling/v2 request to a v1 rule")
			}
		})
	}

	ginkgo.It("matchPolicy Equivalent with resourceNames: a request through autoscaling/v2 is matched by name", func(ctx ginkgo.SpecContext) {
		mr := &admissionregistrationv1.MatchResources{MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
			RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"autoscaling"}, APIVersions: []string{"v1"}, Resources: []string{"horizontalpodautoscalers"}}},
			ResourceNames: []string{"listed", "also-listed"},
		}}}
		gomega.Expect(speckit.VAPWith(ctx, f, "equivalent-names", speckit.AlwaysDenies(mr), bind)).To(gomega.Succeed())
		create := func(name string) error {
			hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "none"}, MaxReplicas: 2}}
			_, err := f.Client.AutoscalingV2().HorizontalPodAutoscalers(f.Namespace).Create(ctx, hpa, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}
		expectMatched(create("also-listed"), "equivalent-names", "an autoscaling/v2 request named in the v1 rule's resourceNames")
		gomega.Expect(create("unlisted")).To(gomega.Succeed(), "an autoscaling/v2 request whose name the rule does not list must not be matched")
	})
})
