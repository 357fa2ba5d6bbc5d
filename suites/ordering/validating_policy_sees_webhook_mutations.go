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

var validatingPolicySeesWebhookMutations = spec.Spec{
	ShortName: "ValidatingPolicySeesWebhookMutations",
	Suite:     "ordering",
	Description: "A ValidatingAdmissionPolicy (a compiled-in validating mechanism) judges the object after mutating " +
		"webhooks changed it: a policy that requires a webhook's mutation admits the object.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "000 Requirements for extensible admission: object mutations must happen before object validations; " +
		"compiled validating admission plugins must run after mutating admission webhooks",
	Manifests: []string{"ordering/configmap.yaml"},
}

// webhookValue is what the mutating webhook writes into data.webhook.
const webhookValue = "by the mutating webhook"

var _ = harness.Describe(validatingPolicySeesWebhookMutations, func(f *harness.Framework) {
	ginkgo.It("admits an object only the webhook's mutation makes valid", func(ctx ginkgo.SpecContext) {
		gomega.Expect(createValidatingPolicy(ctx, f,
			"has(object.data) && 'webhook' in object.data && object.data['webhook'] == '"+webhookValue+"'",
			"the ValidatingAdmissionPolicy did not see the mutating webhook's data.webhook")).To(gomega.Succeed())
		gomega.Expect(waitForPolicies(ctx, f, false)).To(gomega.Succeed())
		m, err := f.RegisterMutating(ctx, "mutate", harness.Hook{Name: "write", Behaviour: patch(setData("webhook", webhookValue))})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		nonce := newNonce()
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		gomega.Expect(cm.Data).NotTo(gomega.HaveKey("webhook"), "the submitted object must not satisfy the policy by itself")
		stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the policy must judge the object as the mutating webhook left it")
		gomega.Expect(stored.Data).To(gomega.HaveKeyWithValue("webhook", webhookValue))

		calls, err := requestCalls(ctx, f, nonce, m.Hooks["write"].Path)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(calls).To(gomega.HaveLen(1), "the mutating webhook must be called once")
	})
})
