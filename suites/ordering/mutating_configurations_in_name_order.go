package ordering

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var mutatingConfigurationsInNameOrder = spec.Spec{
	ShortName: "MutatingConfigurationsInNameOrder",
	Suite:     "ordering",
	Description: "Mutating webhook configurations are called in the order of their names, whatever order they were " +
		"created in; upstream does this but does not promise it, hence extended.",
	Features: []features.Name{features.MutatingWebhook, features.WebhookConfigurationOrder},
	Profile:  spec.Extended,
	Seed: "002 Dynamic admission configuration: when merging multiple configurations, hooks from different " +
		"configurations are sorted by the name of the configuration",
	Manifests: []string{"ordering/configmap.yaml"},
}

var _ = harness.Describe(mutatingConfigurationsInNameOrder, func(f *harness.Framework) {
	ginkgo.It("calls the configurations in name order", func(ctx ginkgo.SpecContext) {
		// Created in reverse name order, so that creation order, or any
		// order but name order, calls them differently.
		created := []string{"c", "b", "a"}
		regs := map[string]*harness.Registration{}
		for _, name := range created {
			r, err := f.RegisterMutating(ctx, name, harness.Hook{Name: "hook", Behaviour: patch(setData("seen-by-"+name, "true"))})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			regs[name] = r
		}

		nonce := newNonce()
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		byName := []string{"a", "b", "c"}
		var hookPaths []string
		for _, name := range byName {
			hookPaths = append(hookPaths, regs[name].Hooks["hook"].Path)
		}
		all, err := requestCalls(ctx, f, nonce, hookPaths...)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(all).To(gomega.HaveLen(len(byName)), "each configuration's webhook must be called once")
		for i, name := range byName {
			gomega.Expect(all[i].Path).To(gomega.Equal(hookPaths[i]), "call %d must go to configuration %s", i+1, regs[name].Name)
			if i > 0 {
				gomega.Expect(all[i-1].RespondedAt.Before(all[i].ReceivedAt)).To(gomega.BeTrue(),
					"configuration %s must be called after %s answered", regs[name].Name, regs[byName[i-1]].Name)
			}
		}
	})
})
