package matching

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var matchingScope = spec.Spec{
	ShortName:   "MatchingScope",
	Suite:       "webhooks",
	Description: "A rule's scope selects namespaced resources (Namespaced), cluster-scoped ones (Cluster) or both (*).",
	Features:    []features.Name{features.ValidatingWebhook},
	Profile:     spec.Core,
	Seed:        "002 Rule: a tuple of APIGroups, APIVersions and Resources; it is recommended to make sure all expansions are valid",
}

var _ = harness.Describe(matchingScope, func(f *harness.Framework) {
	ginkgo.It("Namespaced, Cluster and * against a ConfigMap and a Namespace", func(ctx ginkgo.SpecContext) {
		// The hooks match every resource, so they are scoped by a label only
		// the two objects below carry, in every namespace.
		scope := map[string]string{speckit.ProbeLabel: "scope-" + f.Namespace}
		hook := func(name string, s admissionregistrationv1.ScopeType) harness.Hook {
			return harness.Hook{Name: name, Behaviour: speckit.Allow(),
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"*"}, Scope: ptr.To(s)},
				}},
				NamespaceSelector: &metav1.LabelSelector{},
				ObjectSelector:    &metav1.LabelSelector{MatchLabels: scope},
			}
		}
		reg, err := f.RegisterValidating(ctx, "scope",
			hook("namespaced", admissionregistrationv1.NamespacedScope),
			hook("cluster", admissionregistrationv1.ClusterScope),
			hook("all", admissionregistrationv1.AllScopes))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		cm := speckit.Subject(f.Namespace)
		cm.Labels = scope
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		labels := f.Labels()
		for k, v := range scope {
			labels[k] = v
		}
		ns, err := f.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			GenerateName: f.Namespace + "-scope-", Labels: labels}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.CoreV1().Namespaces().Delete, ns.Name)

		speckit.ExpectReach(f, reg, map[string]speckit.Request{
			"configmap": {Operation: "CREATE", Resource: "configmaps", Namespace: f.Namespace, Name: cm.Name},
			"namespace": {Operation: "CREATE", Resource: "namespaces", Name: ns.Name},
		}, map[string][]string{
			"namespaced": {"configmap"},
			"cluster":    {"namespace"},
			"all":        {"configmap", "namespace"},
		})
	})
})
