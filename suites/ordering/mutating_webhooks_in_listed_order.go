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

var mutatingWebhooksInListedOrder = spec.Spec{
	ShortName: "MutatingWebhooksInListedOrder",
	Suite:     "ordering",
	Description: "The mutating webhooks of one configuration are called one after another in the order the " +
		"configuration lists them (not name order), each seeing the previous one's mutation.",
	Features: []features.Name{features.MutatingWebhook},
	Profile:  spec.Core,
	Seed: "002 Dynamic admission configuration: when merging configurations, the order of the hooks from the same " +
		"configuration is preserved; 000 ordering matters for individual mutators",
	Manifests: []string{"ordering/configmap.yaml"},
}

var _ = harness.Describe(mutatingWebhooksInListedOrder, func(f *harness.Framework) {
	ginkgo.It("calls them serially in listed order", func(ctx ginkgo.SpecContext) {
		// Listed out of name order, so that sorting by name, by path or by
		// creation would all call them differently.
		listed := []string{"zulu", "alpha", "mike"}
		var hooks []harness.Hook
		for _, name := range listed {
			hooks = append(hooks, harness.Hook{Name: name, Behaviour: patch(setData("seen-by-"+name, "true"))})
		}
		m, err := f.RegisterMutating(ctx, "mutate", hooks...)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		nonce := newNonce()
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		all, err := requestCalls(ctx, f, nonce, paths(m, listed...)...)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(all).To(gomega.HaveLen(len(listed)), "each webhook must be called once")
		for i, name := range listed {
			c := all[i]
			gomega.Expect(c.Path).To(gomega.Equal(m.Hooks[name].Path), "call %d must go to %s, the webhook listed %d", i+1, name, i+1)
			var seen corev1.ConfigMap
			gomega.Expect(c.DecodeObject(&seen)).To(gomega.Succeed())
			for j, earlier := range listed {
				if j < i {
					gomega.Expect(seen.Data).To(gomega.HaveKey("seen-by-"+earlier), "%s must see the mutation of %s, listed before it", name, earlier)
				} else {
					gomega.Expect(seen.Data).NotTo(gomega.HaveKey("seen-by-"+earlier), "%s must not see the mutation of %s, listed after it", name, earlier)
				}
			}
			if i > 0 {
				gomega.Expect(all[i-1].RespondedAt.Before(c.ReceivedAt)).To(gomega.BeTrue(),
					"%s must be called after %s answered: mutating webhooks are called serially", name, listed[i-1])
			}
		}
	})
})
