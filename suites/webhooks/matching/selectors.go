package matching

import (
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var matchingSelectors = spec.Spec{
	ShortName: "MatchingSelectors",
	Suite:     "webhooks",
	Description: "namespaceSelector matches on the labels of the object's namespace and objectSelector on the object's own labels; a request must satisfy both; " +
		"objectSelector matches if the object or the old object matches, so a DELETE and an UPDATE removing the label are matched.",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "002 ExternalAdmissionHook: the webhook cares about an operation only where its rules (and scope) match",
}

var _ = harness.Describe(matchingSelectors, func(f *harness.Framework) {
	ginkgo.It("namespaceSelector by namespace label, objectSelector by object label", func(ctx ginkgo.SpecContext) {
		teamLabel := "admission-conformance.io/team"
		labels := f.Labels()
		labels[teamLabel] = f.Namespace
		selected, err := f.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			GenerateName: f.Namespace + "-team-", Labels: labels}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.CoreV1().Namespaces().Delete, selected.Name)

		byNamespace := &metav1.LabelSelector{MatchLabels: map[string]string{teamLabel: f.Namespace}}
		reg, err := f.RegisterValidating(ctx, "selectors",
			harness.Hook{Name: "by-namespace", Behaviour: speckit.Allow(), NamespaceSelector: byNamespace},
			harness.Hook{Name: "by-object", Behaviour: speckit.Allow(),
				ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
					{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"gold"}}}}},
			harness.Hook{Name: "both", Behaviour: speckit.Allow(), NamespaceSelector: byNamespace,
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		create := func(ns, tier string) speckit.Request {
			cm := speckit.Subject(ns)
			if tier != "" {
				cm.Labels["tier"] = tier
			}
			_, err := f.Client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			return speckit.Request{Operation: "CREATE", Resource: "configmaps", Namespace: ns, Name: cm.Name}
		}
		// by-object keeps the harness's default namespaceSelector: the
		// spec's namespace only.
		speckit.ExpectReach(f, reg, map[string]speckit.Request{
			"selected-ns-gold":  create(selected.Name, "gold"),
			"selected-ns-plain": create(selected.Name, ""),
			"spec-ns-gold":      create(f.Namespace, "gold"),
			"spec-ns-silver":    create(f.Namespace, "silver"),
		}, map[string][]string{
			"by-namespace": {"selected-ns-gold", "selected-ns-plain"},
			"by-object":    {"spec-ns-gold"},
			"both":         {"selected-ns-gold"},
		})
	})

	ginkgo.It("objectSelector on DELETE and UPDATE: the object or the old object matches", func(ctx ginkgo.SpecContext) {
		gold := &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}
		reg, err := f.RegisterValidating(ctx, "old-object", harness.Hook{Name: "gold", Behaviour: speckit.Allow(), ObjectSelector: gold,
			Rules: speckit.OperationRule("configmaps", admissionregistrationv1.Update, admissionregistrationv1.Delete)})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		stored := map[string]*corev1.ConfigMap{}
		for _, name := range []string{"deleted-gold", "deleted-plain", "demoted-gold", "promoted-plain"} {
			cm := speckit.Subject(f.Namespace)
			cm.Name = name
			if strings.HasSuffix(name, "-gold") {
				cm.Labels["tier"] = "gold"
			}
			stored[name], err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		for _, name := range []string{"deleted-gold", "deleted-plain"} {
			gomega.Expect(f.Client.CoreV1().ConfigMaps(f.Namespace).Delete(ctx, name, metav1.DeleteOptions{})).To(gomega.Succeed())
		}
		demoted := stored["demoted-gold"].DeepCopy()
		delete(demoted.Labels, "tier")
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, demoted, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		promoted := stored["promoted-plain"].DeepCopy()
		promoted.Labels["tier"] = "gold"
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, promoted, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		speckit.ExpectReach(f, reg, map[string]speckit.Request{
			"delete of a gold object":        {Operation: "DELETE", Resource: "configmaps", Namespace: f.Namespace, Name: "deleted-gold"},
			"delete of a plain object":       {Operation: "DELETE", Resource: "configmaps", Namespace: f.Namespace, Name: "deleted-plain"},
			"update removing the gold label": {Operation: "UPDATE", Resource: "configmaps", Namespace: f.Namespace, Name: "demoted-gold"},
			"update adding the gold label":   {Operation: "UPDATE", Resource: "configmaps", Namespace: f.Namespace, Name: "promoted-plain"},
		}, map[string][]string{
			"gold": {"delete of a gold object", "update removing the gold label", "update adding the gold label"},
		})
	})

	ginkgo.It("the operators In, NotIn, Exists and DoesNotExist, in objectSelector and in namespaceSelector", func(ctx ginkgo.SpecContext) {
		// Two namespaces besides the spec's: one whose team label is the
		// spec's namespace, one with another team. The namespace hooks also
		// select the case label, so they see this case's objects alone.
		const team, tier, caseLabel = "admission-conformance.io/team", "tier", "admission-conformance.io/selector-case"
		nsWithTeam := func(value string) string {
			labels := f.Labels()
			labels[team] = value
			ns, err := f.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
				GenerateName: f.Namespace + "-team-", Labels: labels}}, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.CoreV1().Namespaces().Delete, ns.Name)
			return ns.Name
		}
		mine, other := nsWithTeam(f.Namespace), nsWithTeam(f.Namespace+"-other")
		req := func(key string, op metav1.LabelSelectorOperator, values ...string) *metav1.LabelSelector {
			return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}
		}
		thisCase := &metav1.LabelSelector{MatchLabels: map[string]string{caseLabel: f.Namespace}}
		nsHook := func(name string, sel *metav1.LabelSelector) harness.Hook {
			return harness.Hook{Name: name, Behaviour: speckit.Allow(), NamespaceSelector: sel, ObjectSelector: thisCase}
		}
		reg, err := f.RegisterValidating(ctx, "operators",
			harness.Hook{Name: "obj-in", Behaviour: speckit.Allow(), ObjectSelector: req(tier, metav1.LabelSelectorOpIn, "gold", "silver")},
			harness.Hook{Name: "obj-notin", Behaviour: speckit.Allow(), ObjectSelector: req(tier, metav1.LabelSelectorOpNotIn, "gold")},
			harness.Hook{Name: "obj-exists", Behaviour: speckit.Allow(), ObjectSelector: req(tier, metav1.LabelSelectorOpExists)},
			harness.Hook{Name: "obj-doesnotexist", Behaviour: speckit.Allow(), ObjectSelector: req(tier, metav1.LabelSelectorOpDoesNotExist)},
			nsHook("ns-in", req(team, metav1.LabelSelectorOpIn, f.Namespace, f.Namespace+"-other")),
			nsHook("ns-notin", req(team, metav1.LabelSelectorOpNotIn, f.Namespace)),
			nsHook("ns-exists", req(team, metav1.LabelSelectorOpExists)),
			nsHook("ns-doesnotexist", req(team, metav1.LabelSelectorOpDoesNotExist)),
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		create := func(ns, tierValue string) speckit.Request {
			cm := speckit.Subject(ns)
			cm.Labels[caseLabel] = f.Namespace
			if tierValue != "" {
				cm.Labels[tier] = tierValue
			}
			_, err := f.Client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			return speckit.Request{Operation: "CREATE", Resource: "configmaps", Namespace: ns, Name: cm.Name}
		}
		spec := []string{"gold", "silver", "bronze", "no tier"}
		speckit.ExpectReach(f, reg, map[string]speckit.Request{
			"gold": create(f.Namespace, "gold"), "silver": create(f.Namespace, "silver"),
			"bronze": create(f.Namespace, "bronze"), "no tier": create(f.Namespace, ""),
			"in my team's namespace": create(mine, ""), "in another team's namespace": create(other, ""),
		}, map[string][]string{
			// The object hooks keep the harness's namespaceSelector: the
			// spec's namespace only.
			"obj-in":           {"gold", "silver"},
			"obj-notin":        {"silver", "bronze", "no tier"}, // NotIn also selects an object without the label
			"obj-exists":       {"gold", "silver", "bronze"},
			"obj-doesnotexist": {"no tier"},
			"ns-in":            {"in my team's namespace", "in another team's namespace"},
			"ns-notin":         append([]string{"in another team's namespace"}, spec...), // and namespaces without the label
			"ns-exists":        {"in my team's namespace", "in another team's namespace"},
			"ns-doesnotexist":  spec,
		})
	})
})
