package matching

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var namespaceSelectorOnClusterScoped = spec.Spec{
	ShortName: "NamespaceSelectorOnClusterScoped",
	Suite:     "webhooks",
	Description: "A request about a cluster-scoped object other than a Namespace is never exempted by a namespaceSelector: " +
		"a webhook, and a policy, whose namespaceSelector selects no namespace at all still apply to it (a dry-run " +
		"create of a PriorityClass), while their objectSelector still exempts it.",
	Features: []features.Name{features.ValidatingWebhook, features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "002 ExternalAdmissionHook: the webhook cares about an operation only where its rules (and scope) match; " +
		"admissionregistration.k8s.io/v1 ValidatingWebhook.namespaceSelector: cluster-scoped resources other than namespaces are never skipped",
}

// selectsNoNamespace is a namespaceSelector no namespace matches.
var selectsNoNamespace = &metav1.LabelSelector{MatchLabels: map[string]string{namespaceSelected: "no-namespace-has-this"}}

var _ = harness.Describe(namespaceSelectorOnClusterScoped, func(f *harness.Framework) {
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"scheduling.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"priorityclasses"},
			Scope: ptr.To(admissionregistrationv1.ClusterScope)},
	}}
	priorityClass := func(name, value string) *schedulingv1.PriorityClass {
		return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{speckit.ProbeLabel: value}}, Value: 1000}
	}
	// Dry run: nothing is stored, and the harness's webhooks (sideEffects
	// None) are called for it.
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

	ginkgo.It("a webhook whose namespaceSelector selects no namespace is called for a cluster-scoped object", func(ctx ginkgo.SpecContext) {
		value := "cluster-" + f.Namespace
		reg, err := f.RegisterValidating(ctx, "cluster", harness.Hook{Name: "selected", Behaviour: speckit.Allow(), Rules: rules,
			NamespaceSelector: selectsNoNamespace, ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		api := f.Client.SchedulingV1().PriorityClasses()
		in, out := f.Namespace+"-in", f.Namespace+"-out"
		_, err = api.Create(ctx, priorityClass(in, value), dryRun)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = api.Create(ctx, priorityClass(out, "other-"+value), dryRun)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		speckit.ExpectReach(f, reg, map[string]speckit.Request{
			"selected-by-object": {Operation: "CREATE", Resource: "priorityclasses", Name: in},
			"other-object":       {Operation: "CREATE", Resource: "priorityclasses", Name: out},
		}, map[string][]string{"selected": {"selected-by-object"}})
	})

	ginkgo.It("a policy whose namespaceSelector selects no namespace applies to a cluster-scoped object", func(ctx ginkgo.SpecContext) {
		value := "cluster-policy-" + f.Namespace
		message := "cluster-scoped selected " + f.Namespace
		gomega.Expect(speckit.VAPWith(ctx, f, "cluster", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules:     []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: rules[0]}},
				NamespaceSelector: selectsNoNamespace, ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: message}},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn},
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{}}})).To(gomega.Succeed())
		client, warned := speckit.WarningClient(f)
		api := client.SchedulingV1().PriorityClasses()
		warnedAbout := func(name, value string) bool {
			_, err := api.Create(ctx, priorityClass(name, value), dryRun)
			gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "Warn admits the dry-run create")
			return warned.TakeMentioning(message)
		}
		gomega.Expect(warnedAbout(f.Namespace+"-in", value)).To(gomega.BeTrue(),
			"the policy applies to a cluster-scoped object its objectSelector selects, whatever its namespaceSelector")
		gomega.Expect(warnedAbout(f.Namespace+"-out", "other-"+value)).To(gomega.BeFalse(),
			"the policy's objectSelector still exempts a cluster-scoped object it does not select")
	})
})
