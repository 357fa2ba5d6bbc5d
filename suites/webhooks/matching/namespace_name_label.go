package matching

import (
	"encoding/json"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var namespaceNameLabel = spec.Spec{
	ShortName: "NamespaceNameLabelNotForgeable",
	Suite:     "webhooks",
	Description: "The control plane sets every namespace's kubernetes.io/metadata.name label to the namespace's name: a " +
		"client can neither create a namespace with another value (named or generated), nor change or remove it later, " +
		"validating webhooks see the true value, and a namespaceSelector on it selects only the namespace it names.",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 ValidatingWebhook.namespaceSelector; kubernetes.io/metadata.name, set by the " +
		"control plane on every namespace (KEP-2161), the label selectors rely on to name a namespace",
}

var _ = harness.Describe(namespaceNameLabel, func(f *harness.Framework) {
	ginkgo.It("a namespace claiming another namespace's name label gets its own, on create, update and removal", func(ctx ginkgo.SpecContext) {
		api := f.Client.CoreV1().Namespaces()
		// A validating webhook on namespace creates records what it is sent.
		nsHook, err := speckit.Register(ctx, f, fakewebhook.Validating, harness.Hook{Name: "namespaces", Behaviour: speckit.Allow(),
			FailurePolicy: admissionregistrationv1.Fail, NamespaceSelector: &metav1.LabelSelector{},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: f.Namespace}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"namespaces"},
					Scope: ptr.To(admissionregistrationv1.ClusterScope)},
			}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		forged := func() map[string]string {
			l := f.Labels()
			l[speckit.ProbeLabel] = f.Namespace
			l[corev1.LabelMetadataName] = f.Namespace // the spec's own namespace: the one a forger would claim
			return l
		}
		named, err := api.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.Namespace + "-named", Labels: forged()}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, api.Delete, named.Name)
		generated, err := api.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: f.Namespace + "-gen-", Labels: forged()}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, api.Delete, generated.Name)
		for _, ns := range []*corev1.Namespace{named, generated} {
			gomega.Expect(ns.Labels).To(gomega.HaveKeyWithValue(corev1.LabelMetadataName, ns.Name), "created %s: the label is the namespace's own name", ns.Name)
			calls := f.Env.Webhooks.Journal().ForPath(nsHook.Hooks["namespaces"].Path)
			var seen []string
			for _, c := range calls {
				var got corev1.Namespace
				gomega.Expect(json.Unmarshal(c.Object, &got)).To(gomega.Succeed())
				if got.Name == ns.Name {
					seen = append(seen, got.Labels[corev1.LabelMetadataName])
				}
			}
			gomega.Expect(seen).To(gomega.Equal([]string{ns.Name}), "the validating webhook sees %s with its true name label", ns.Name)
		}

		// Update: set the label to another value, then remove it.
		ns, err := api.Get(ctx, named.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ns.Labels[corev1.LabelMetadataName] = f.Namespace
		updated, err := api.Update(ctx, ns, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(updated.Labels).To(gomega.HaveKeyWithValue(corev1.LabelMetadataName, named.Name), "an update cannot change the label")
		patch := []byte(`[{"op":"remove","path":"/metadata/labels/kubernetes.io~1metadata.name"}]`)
		patched, err := api.Patch(ctx, named.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(patched.Labels).To(gomega.HaveKeyWithValue(corev1.LabelMetadataName, named.Name), "a patch cannot remove the label")

		// A webhook selecting the spec's namespace by that label judges
		// requests there, never in the namespace that claimed it.
		denier, err := f.RegisterValidating(ctx, "by-name-label", harness.Hook{Name: "deny",
			Behaviour:         fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "selected by name label"},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: f.Namespace}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		elsewhere := speckit.Subject(named.Name)
		_, err = f.Client.CoreV1().ConfigMaps(named.Name).Create(ctx, elsewhere, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a namespace that tried to forge the name label is not selected")
		gomega.Expect(speckit.CallsTo(f, denier.Hooks["deny"], named.Name, elsewhere.Name)).To(gomega.BeEmpty())
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		gomega.Expect(speckit.DeniedWith(err, "selected by name label")).To(gomega.BeTrue(), "the named namespace is selected, got %v", err)
	})
})
