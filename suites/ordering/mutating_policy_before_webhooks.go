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

var mutatingPolicyBeforeWebhooks = spec.Spec{
	ShortName: "MutatingPolicyBeforeWebhooks",
	Suite:     "ordering",
	Description: "A MutatingAdmissionPolicy's change is in the object the mutating webhooks after it receive, and in the " +
		"object the ValidatingAdmissionPolicy and the validating webhooks judge.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook,
		features.ValidatingAdmissionPolicy, features.MutatingAdmissionPolicy},
	Profile: spec.Extended,
	Seed: "000 Requirements for extensible admission: object mutations must happen before object validations " +
		"(every mutator, compiled or webhook, before every validator); 003 the chain runs plugins in their registered order",
	Manifests: []string{"ordering/configmap.yaml"},
}

// policyValue is what the MutatingAdmissionPolicy writes into data.policy.
const policyValue = "by the mutating admission policy"

var _ = harness.Describe(mutatingPolicyBeforeWebhooks, func(f *harness.Framework) {
	ginkgo.It("shows the policy's mutation to the webhooks and policies after it", func(ctx ginkgo.SpecContext) {
		hasPolicyValue := "has(object.data) && 'policy' in object.data && object.data['policy'] == '" + policyValue + "'"
		gomega.Expect(createMutatingPolicy(ctx, f,
			`[JSONPatch{op: "add", path: "/data/policy", value: "`+policyValue+`"}]`)).To(gomega.Succeed())
		gomega.Expect(createValidatingPolicy(ctx, f,
			hasPolicyValue+" && 'webhook' in object.data && object.data['webhook'] == '"+webhookValue+"'",
			"the ValidatingAdmissionPolicy did not see both the MutatingAdmissionPolicy's and the mutating webhook's changes")).To(gomega.Succeed())
		gomega.Expect(waitForPolicies(ctx, f, true)).To(gomega.Succeed())
		v, err := f.RegisterValidating(ctx, "validate", harness.Hook{Name: "observe", Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		m, err := f.RegisterMutating(ctx, "mutate", harness.Hook{Name: "write", Behaviour: patch(setData("webhook", webhookValue))})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		nonce := newNonce()
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the ValidatingAdmissionPolicy must see both mutations")
		gomega.Expect(stored.Data).To(gomega.And(gomega.HaveKeyWithValue("policy", policyValue), gomega.HaveKeyWithValue("webhook", webhookValue)))

		mutatingPath, validatingPath := m.Hooks["write"].Path, v.Hooks["observe"].Path
		all, err := requestCalls(ctx, f, nonce, mutatingPath, validatingPath)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		mc, vc := all.onPath(mutatingPath), all.onPath(validatingPath)
		gomega.Expect(mc).To(gomega.HaveLen(1), "the mutating webhook must be called once")
		gomega.Expect(vc).To(gomega.HaveLen(1), "the validating webhook must be called once")
		var mutating, validating corev1.ConfigMap
		gomega.Expect(mc[0].DecodeObject(&mutating)).To(gomega.Succeed())
		gomega.Expect(vc[0].DecodeObject(&validating)).To(gomega.Succeed())
		gomega.Expect(mutating.Data).To(gomega.HaveKeyWithValue("policy", policyValue),
			"the mutating webhook runs after the MutatingAdmissionPolicy and must see its change")
		gomega.Expect(validating.Data).To(gomega.And(gomega.HaveKeyWithValue("policy", policyValue), gomega.HaveKeyWithValue("webhook", webhookValue)),
			"the validating webhook must see both mutations")
	})
})
