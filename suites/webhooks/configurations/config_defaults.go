package configurations

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookConfigurationDefaults = spec.Spec{
	ShortName: "WebhookConfigurationDefaults",
	Suite:     "webhooks",
	Description: "A mutating or validating webhook created with every optional field unset is stored with the v1 defaults " +
		"(failurePolicy Fail, matchPolicy Equivalent, timeoutSeconds 10, namespaceSelector and objectSelector {}, " +
		"reinvocationPolicy Never, rules' scope *), and each default behaves as its value: an HTTP 500 rejects the " +
		"request, the call carries ?timeout=10s, another version of the resource is matched, every object and namespace " +
		"is selected, and a mutating webhook is not called again after a later webhook changed the object.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 MutatingWebhook and ValidatingWebhook defaults: failurePolicy, matchPolicy, " +
		"timeoutSeconds, namespaceSelector, objectSelector, reinvocationPolicy, rules[].scope",
}

var _ = harness.Describe(webhookConfigurationDefaults, func(f *harness.Framework) {
	phases := []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating}
	for _, phase := range phases {
		ginkgo.It(fmt.Sprintf("%s: every field left unset is stored with its default, and the default selectors and scope match", phase), func(ctx ginkgo.SpecContext) {
			unique := "everywhere-" + f.Namespace
			cfg, err := createBareConfig(ctx, f, phase, "readback",
				// Scoped by namespace only: objectSelector is left unset. Its
				// rule names secrets, so the sentinel's configmaps never reach it.
				bareHook{name: "no-object-selector", behaviour: speckit.Allow(), rules: bareRules("", "v1", "secrets"),
					namespaceSelector: inNamespace(f)},
				// Scoped by one label only: namespaceSelector is left unset,
				// so it matches every namespace, and failurePolicy is Ignore
				// so that it can never block anything.
				bareHook{name: "no-namespace-selector", behaviour: speckit.Allow(),
					objectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: unique}},
					failurePolicy:  ptr.To(admissionregistrationv1.Ignore)},
			)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())

			for _, h := range cfg.read(ctx, f) {
				what := fmt.Sprintf("%s webhook %s", phase, h.Name)
				gomega.Expect(h.MatchPolicy).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.Equivalent)),
					"%s: matchPolicy must default to Equivalent", what)
				gomega.Expect(h.TimeoutSeconds).To(gomega.HaveValue(gomega.Equal(int32(10))), "%s: timeoutSeconds must default to 10", what)
				gomega.Expect(h.Rules).NotTo(gomega.BeEmpty())
				gomega.Expect(h.Rules[0].Scope).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.AllScopes)),
					"%s: rules[].scope must default to \"*\"", what)
				if phase == fakewebhook.Mutating {
					gomega.Expect(h.ReinvocationPolicy).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.NeverReinvocationPolicy)),
						"%s: reinvocationPolicy must default to Never", what)
				}
				switch h.Name {
				case cfg.hooks["no-object-selector"].FullName:
					gomega.Expect(h.FailurePolicy).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.Fail)), "%s: failurePolicy must default to Fail", what)
					expectEmptySelector(h.ObjectSelector, what+": objectSelector must default to {}")
				case cfg.hooks["no-namespace-selector"].FullName:
					expectEmptySelector(h.NamespaceSelector, what+": namespaceSelector must default to {}")
				}
			}

			ginkgo.By("objectSelector {} selects every object and scope * a namespaced resource")
			secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unselected", Namespace: f.Namespace}}
			_, err = f.Client.CoreV1().Secrets(f.Namespace).Create(ctx, secret, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(speckit.CallsTo(f, cfg.hooks["no-object-selector"], f.Namespace, secret.Name)).To(gomega.HaveLen(1),
				"a webhook whose objectSelector and rules' scope were defaulted must be called for an unlabelled namespaced object")

			ginkgo.By("namespaceSelector {} selects every namespace")
			cm := speckit.Subject(f.Namespace)
			cm.Labels[speckit.ProbeLabel] = unique
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(speckit.CallsTo(f, cfg.hooks["no-namespace-selector"], f.Namespace, cm.Name)).To(gomega.HaveLen(1),
				"a webhook whose namespaceSelector was defaulted must be called for an object in any namespace")
		})

		ginkgo.It(fmt.Sprintf("%s: failurePolicy unset is Fail: a webhook answering HTTP 500 rejects the request", phase), func(ctx ginkgo.SpecContext) {
			cm := speckit.Subject(f.Namespace)
			cfg, err := createBareConfig(ctx, f, phase, "failure-policy", bareHook{name: "http-500",
				behaviour: fakewebhook.Behaviour{Action: fakewebhook.InternalError}, namespaceSelector: inNamespace(f), objectSelector: speckit.Selecting(cm)})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			speckit.ExpectCallFailure(err, cfg.hooks["http-500"].FullName)
		})

		ginkgo.It(fmt.Sprintf("%s: timeoutSeconds unset is 10: the call carries ?timeout=10s", phase), func(ctx ginkgo.SpecContext) {
			cm := speckit.Subject(f.Namespace)
			cfg, err := createBareConfig(ctx, f, phase, "timeout", bareHook{name: "told-timeout", behaviour: speckit.Allow(),
				namespaceSelector: inNamespace(f), objectSelector: speckit.Selecting(cm)})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			calls := speckit.CallsTo(f, cfg.hooks["told-timeout"], f.Namespace, cm.Name)
			gomega.Expect(calls).To(gomega.HaveLen(1))
			gomega.Expect(calls[0].TimeoutParam).To(gomega.Equal("10s"),
				"the apiserver tells the webhook its timeoutSeconds in ?timeout=, and an unset timeoutSeconds is 10")
		})

		ginkgo.It(fmt.Sprintf("%s: matchPolicy unset is Equivalent: a rule for autoscaling/v1 matches a request through autoscaling/v2", phase), func(ctx ginkgo.SpecContext) {
			// The brief's example, a rule for apps/v1 deployments, cannot be
			// observed: apps/v1 is the only version of deployments served since
			// 1.16 (extensions/v1beta1, apps/v1beta1 and apps/v1beta2 were
			// removed). HorizontalPodAutoscalers are served as autoscaling/v1
			// and autoscaling/v2, both GA.
			for _, gv := range []string{"autoscaling/v1", "autoscaling/v2"} {
				resources, err := f.Client.Discovery().ServerResourcesForGroupVersion(gv)
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s must be served (GA in Kubernetes 1.36)", gv)
				var names []string
				for _, r := range resources.APIResources {
					names = append(names, r.Name)
				}
				gomega.Expect(names).To(gomega.ContainElement("horizontalpodautoscalers"), "%s must serve horizontalpodautoscalers", gv)
			}
			name := "via-v2"
			cfg, err := createBareConfig(ctx, f, phase, "match-policy", bareHook{name: "v1-rule", behaviour: speckit.Allow(),
				rules: bareRules("autoscaling", "v1", "horizontalpodautoscalers"), namespaceSelector: inNamespace(f),
				objectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: name}}})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			_, err = f.Client.AutoscalingV2().HorizontalPodAutoscalers(f.Namespace).Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{speckit.ProbeLabel: name}},
				Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 2,
					ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "none"}},
			}, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			calls := speckit.CallsTo(f, cfg.hooks["v1-rule"], f.Namespace, name)
			gomega.Expect(calls).To(gomega.HaveLen(1),
				"with matchPolicy unset (Equivalent), a rule for autoscaling/v1 must match a request made through autoscaling/v2")
			gomega.Expect(calls[0].Kind.Version).To(gomega.Equal("v1"), "the object is sent in the version the rule names")
			gomega.Expect(calls[0].RequestKind).To(gomega.HaveValue(gomega.HaveField("Version", "v2")), "requestKind says how the request was made")
		})
	}

	ginkgo.It("mutating: reinvocationPolicy unset is Never: a webhook is called once although a later webhook changes the object", func(ctx ginkgo.SpecContext) {
		cm := speckit.Subject(f.Namespace)
		patch := func(key string) fakewebhook.Behaviour {
			return fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: []fakewebhook.PatchOperation{{Op: "add", Path: "/data/" + key, Value: "by " + key}}}
		}
		// Both hooks change the object, so whichever runs first sees a
		// change after its call: under IfNeeded it would be called again.
		cfg, err := createBareConfig(ctx, f, fakewebhook.Mutating, "reinvocation",
			bareHook{name: "first", behaviour: patch("first"), namespaceSelector: inNamespace(f), objectSelector: speckit.Selecting(cm)},
			bareHook{name: "second", behaviour: patch("second"), namespaceSelector: inNamespace(f), objectSelector: speckit.Selecting(cm)},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		got, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Data).To(gomega.And(gomega.HaveKey("first"), gomega.HaveKey("second")), "both webhooks' patches must be applied")
		for _, h := range []string{"first", "second"} {
			gomega.Expect(speckit.CallsTo(f, cfg.hooks[h], f.Namespace, cm.Name)).To(gomega.HaveLen(1),
				"webhook %s (reinvocationPolicy unset, so Never) must be called once, though the other webhook changed the object", h)
		}
	})
})

// bareHook is a webhook with only the fields the API requires (name,
// clientConfig, rules without scope, sideEffects, admissionReviewVersions)
// and the scoping a case chooses: every field the API defaults is left unset
// for the apiserver to fill in.
type bareHook struct {
	name      string
	behaviour fakewebhook.Behaviour
	// rules default to CREATE of v1 configmaps, scope unset.
	rules                             []admissionregistrationv1.RuleWithOperations
	namespaceSelector, objectSelector *metav1.LabelSelector
	failurePolicy                     *admissionregistrationv1.FailurePolicyType
}

// bareConfig is a webhook configuration of bare hooks created by a case.
type bareConfig struct {
	name  string
	phase fakewebhook.Phase
	hooks map[string]harness.RegisteredHook
}

// bareRules is CREATE of one resource, scope left unset.
func bareRules(group, version, resource string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{version}, Resources: []string{resource}},
	}}
}

// createBareConfig creates a configuration <namespace>-<name> of phase
// holding hooks and a sentinel hook, deletes it after the case, and returns
// once every apiserver replica enforces it: the sentinel (failurePolicy Fail,
// only configmaps labelled for it in the spec's namespace) denies its dry-run
// probes, and the hooks of one configuration come into force together.
func createBareConfig(ctx context.Context, f *harness.Framework, phase fakewebhook.Phase, name string, hooks ...bareHook) (*bareConfig, error) {
	cfg := &bareConfig{name: f.Namespace + "-" + name, phase: phase, hooks: map[string]harness.RegisteredHook{}}
	var webhooks []admissionregistrationv1.ValidatingWebhook
	add := func(served harness.RegisteredHook, client admissionregistrationv1.WebhookClientConfig, h bareHook) {
		rules := h.rules
		if rules == nil {
			rules = bareRules("", "v1", "configmaps")
		}
		webhooks = append(webhooks, admissionregistrationv1.ValidatingWebhook{
			Name: served.FullName, ClientConfig: client, Rules: rules, FailurePolicy: h.failurePolicy,
			NamespaceSelector: h.namespaceSelector, ObjectSelector: h.objectSelector,
			SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		})
	}
	for _, h := range hooks {
		served, client, err := f.Serve(phase, name+"-"+h.name, h.behaviour)
		if err != nil {
			return nil, err
		}
		cfg.hooks[h.name] = served
		add(served, client, h)
	}
	sentinelLabel, message := "sentinel-"+name, "admission-conformance sentinel of "+cfg.name
	sentinel, client, err := f.Serve(phase, name+"-sentinel", fakewebhook.Behaviour{Action: fakewebhook.Deny, Code: http.StatusForbidden, Message: message})
	if err != nil {
		return nil, err
	}
	add(sentinel, client, bareHook{rules: speckit.ConfigMapRules(), failurePolicy: ptr.To(admissionregistrationv1.Fail),
		namespaceSelector: inNamespace(f), objectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: sentinelLabel}}})

	ar := f.Client.AdmissionregistrationV1()
	meta := metav1.ObjectMeta{Name: cfg.name, Labels: f.Labels()}
	if phase == fakewebhook.Mutating {
		// mutatingHooks leaves reinvocationPolicy unset.
		if _, err := ar.MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: meta, Webhooks: mutatingHooks(webhooks)}, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create mutating webhook configuration %s: %w", cfg.name, err)
		}
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.MutatingWebhookConfigurations().Delete, cfg.name)
	} else {
		if _, err := ar.ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: meta, Webhooks: webhooks}, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("create validating webhook configuration %s: %w", cfg.name, err)
		}
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, ar.ValidatingWebhookConfigurations().Delete, cfg.name)
	}
	if _, err := enforce.OnEveryReplica(ctx, time.Now(), f.Replicas, f.Bounds.WebhookReady.Duration, f.Bounds.PollInterval.Duration,
		probe(f, sentinelLabel, func(err error) bool { return speckit.DeniedWith(err, message) })); err != nil {
		return nil, fmt.Errorf("webhook configuration %s: %w", cfg.name, err)
	}
	return cfg, nil
}

// storedHook is the part of a stored webhook the defaults specs read.
type storedHook struct {
	Name                              string
	FailurePolicy                     *admissionregistrationv1.FailurePolicyType
	MatchPolicy                       *admissionregistrationv1.MatchPolicyType
	TimeoutSeconds                    *int32
	NamespaceSelector, ObjectSelector *metav1.LabelSelector
	Rules                             []admissionregistrationv1.RuleWithOperations
	ReinvocationPolicy                *admissionregistrationv1.ReinvocationPolicyType
}

// read returns the configuration's webhooks as stored, the sentinel left out.
func (c *bareConfig) read(ctx context.Context, f *harness.Framework) []storedHook {
	ar := f.Client.AdmissionregistrationV1()
	known := map[string]bool{}
	for _, h := range c.hooks {
		known[h.FullName] = true
	}
	var out []storedHook
	if c.phase == fakewebhook.Mutating {
		stored, err := ar.MutatingWebhookConfigurations().Get(ctx, c.name, metav1.GetOptions{})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		for _, h := range stored.Webhooks {
			out = append(out, storedHook{h.Name, h.FailurePolicy, h.MatchPolicy, h.TimeoutSeconds, h.NamespaceSelector, h.ObjectSelector, h.Rules, h.ReinvocationPolicy})
		}
	} else {
		stored, err := ar.ValidatingWebhookConfigurations().Get(ctx, c.name, metav1.GetOptions{})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		for _, h := range stored.Webhooks {
			out = append(out, storedHook{h.Name, h.FailurePolicy, h.MatchPolicy, h.TimeoutSeconds, h.NamespaceSelector, h.ObjectSelector, h.Rules, nil})
		}
	}
	var hooks []storedHook
	for _, h := range out {
		if known[h.Name] {
			hooks = append(hooks, h)
		}
	}
	gomega.ExpectWithOffset(1, hooks).To(gomega.HaveLen(len(c.hooks)), "every webhook of %s must be stored", c.name)
	return hooks
}

// expectEmptySelector asserts sel is the empty selector {}, which selects everything.
func expectEmptySelector(sel *metav1.LabelSelector, what string) {
	gomega.ExpectWithOffset(1, sel).NotTo(gomega.BeNil(), what)
	gomega.ExpectWithOffset(1, sel.MatchLabels).To(gomega.BeEmpty(), what)
	gomega.ExpectWithOffset(1, sel.MatchExpressions).To(gomega.BeEmpty(), what)
}

var validatingAdmissionPolicyDefaults = spec.Spec{
	ShortName: "ValidatingAdmissionPolicyDefaults",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy and a binding created with optional fields unset are stored with the v1 " +
		"defaults (failurePolicy Fail; matchPolicy Equivalent, namespaceSelector and objectSelector {} in matchConstraints " +
		"and matchResources; resourceRules' scope *), and the default matchPolicy behaves as Equivalent.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy defaults: spec.failurePolicy, spec.matchConstraints " +
		"(matchPolicy, selectors, resourceRules[].scope), the binding's spec.matchResources",
}

var mutatingAdmissionPolicyDefaults = spec.Spec{
	ShortName: "MutatingAdmissionPolicyDefaults",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy and a binding created with optional fields unset are stored with the v1 defaults " +
		"(failurePolicy Fail, which denies when a mutation errors; matchPolicy Equivalent and {} selectors), and " +
		"reinvocationPolicy, which has no default, is required.",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy defaults: spec.failurePolicy, spec.matchConstraints, spec.reinvocationPolicy (required)",
}

// unscopedRules leaves matchPolicy, selectors and the rule's scope unset.
func unscopedRules(group, version, resource string) *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: bareRules(group, version, resource)[0]}}}
}
func expectMatchDefaults(mr *admissionregistrationv1.MatchResources, what string, scope bool) {
	gomega.ExpectWithOffset(1, mr).NotTo(gomega.BeNil(), "%s must be stored", what)
	gomega.ExpectWithOffset(1, mr.MatchPolicy).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.Equivalent)),
		"%s.matchPolicy must default to Equivalent", what)
	expectEmptySelector(mr.NamespaceSelector, what+".namespaceSelector must default to {}")
	expectEmptySelector(mr.ObjectSelector, what+".objectSelector must default to {}")
	if scope {
		gomega.ExpectWithOffset(1, mr.ResourceRules).NotTo(gomega.BeEmpty())
		gomega.ExpectWithOffset(1, mr.ResourceRules[0].Scope).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.AllScopes)),
			"%s.resourceRules[].scope must default to \"*\"", what)
	}
}

// itStoresBindingDefaults is the binding case both policy kinds' defaults
// specs share: a binding of kind, called suffix, with matchResources {} and
// naming a policy that does not exist (so it applies to nothing), is stored
// with matchResources' defaults. createAndGet creates it (deleted after the
// case) and returns the stored matchResources.
func itStoresBindingDefaults(f *harness.Framework, kind, suffix string,
	createAndGet func(ctx context.Context, name, policy string) (*admissionregistrationv1.MatchResources, error)) {
	ginkgo.It("binding: matchResources' matchPolicy and selectors are stored with their defaults", func(ctx ginkgo.SpecContext) {
		stored, err := createAndGet(ctx, speckit.PolicyName(f, suffix), speckit.PolicyName(f, "absent"))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		expectMatchDefaults(stored, kind+" spec.matchResources", false)
	})
}

var _ = harness.Describe(validatingAdmissionPolicyDefaults, func(f *harness.Framework) {
	ginkgo.It("ValidatingAdmissionPolicy: failurePolicy, matchConstraints' matchPolicy and selectors, and resourceRules' scope are stored with their defaults", func(ctx ginkgo.SpecContext) {
		// Without a binding a policy applies to nothing, so its selectors
		// can be left unset safely.
		api := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
		name := speckit.PolicyName(f, "defaults")
		_, err := api.Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: unscopedRules("", "v1", "configmaps"),
				Validations:      []admissionregistrationv1.Validation{{Expression: "true"}},
			}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, api.Delete, name)
		stored, err := api.Get(ctx, name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(stored.Spec.FailurePolicy).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.Fail)), "spec.failurePolicy must default to Fail")
		expectMatchDefaults(stored.Spec.MatchConstraints, "spec.matchConstraints", true)
	})

	itStoresBindingDefaults(f, "ValidatingAdmissionPolicyBinding", "vapb-defaults", func(ctx context.Context, name, policy string) (*admissionregistrationv1.MatchResources, error) {
		vapb := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
		if _, err := vapb.Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: speckit.DenyAction(),
				MatchResources: &admissionregistrationv1.MatchResources{}},
		}, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, vapb.Delete, name)
		stored, err := vapb.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return stored.Spec.MatchResources, nil
	})

	ginkgo.It("ValidatingAdmissionPolicy: matchPolicy unset is Equivalent: a rule for autoscaling/v1 applies to a request through autoscaling/v2", func(ctx ginkgo.SpecContext) {
		policy := speckit.AlwaysDenies(unscopedRules("autoscaling", "v1", "horizontalpodautoscalers"))
		policy.FailurePolicy = nil
		gomega.Expect(speckit.VAPWith(ctx, f, "equivalent", policy,
			admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "via-v2"}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "none"}, MaxReplicas: 2}}
		_, err := f.Client.AutoscalingV2().HorizontalPodAutoscalers(f.Namespace).Create(ctx, hpa, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		gomega.Expect(err).To(gomega.HaveOccurred(), "with matchPolicy unset (Equivalent), a rule for autoscaling/v1 must apply to an autoscaling/v2 request")
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "equivalent", "matched"))
	})

})

var _ = harness.Describe(mutatingAdmissionPolicyDefaults, func(f *harness.Framework) {
	itStoresBindingDefaults(f, "MutatingAdmissionPolicyBinding", "mapb-defaults", func(ctx context.Context, name, policy string) (*admissionregistrationv1.MatchResources, error) {
		mapb := mutatingpolicy.BindingClient(f.Dynamic)
		if _, err := mapb.Create(ctx, &mutatingpolicy.MutatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Spec: mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: policy,
				MatchResources: &admissionregistrationv1.MatchResources{}},
		}, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, mapb.Delete, name)
		stored, err := mapb.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return stored.Spec.MatchResources, nil
	})

	ginkgo.It("MutatingAdmissionPolicy: failurePolicy unset is stored as Fail, and a mutation that errors denies the request", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.MAPWith(ctx, f, "default-fail", mutatingpolicy.MutatingAdmissionPolicySpec{
			Mutations: []mutatingpolicy.Mutation{speckit.JSONPatch(`[JSONPatch{op: "add", path: "/data/copy", value: object.data["absent"]}]`)},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		stored, err := mutatingpolicy.PolicyClient(f.Dynamic).Get(ctx, speckit.PolicyName(f, "default-fail"), metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(stored.Spec.FailurePolicy).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.Fail)), "spec.failurePolicy must default to Fail")
		gomega.Expect(stored.Spec.MatchConstraints.MatchPolicy).To(gomega.HaveValue(gomega.Equal(admissionregistrationv1.Equivalent)),
			"spec.matchConstraints.matchPolicy must default to Equivalent")
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "subject", map[string]string{"present": "yes"}), metav1.CreateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(), "failurePolicy unset (Fail) must deny when a mutation fails")
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("no such key: absent"), "the denial must carry the evaluation error")
	})

	ginkgo.It("MutatingAdmissionPolicy: reinvocationPolicy has no default: a policy without it is refused", func(ctx ginkgo.SpecContext) {
		_, err := mutatingpolicy.PolicyClient(f.Dynamic).Create(ctx, &mutatingpolicy.MutatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: speckit.PolicyName(f, "no-reinvocation"), Labels: f.Labels()},
			Spec: mutatingpolicy.MutatingAdmissionPolicySpec{
				MatchConstraints: unscopedRules("", "v1", "configmaps"),
				Mutations:        []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`)},
			}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		speckit.ExpectFieldInvalid(err, "spec.reinvocationPolicy", "Required value")
	})
})
