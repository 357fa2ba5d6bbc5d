package ordering

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/e2e-framework/klient/decoder"

	"github.com/admission-conformance/admission-conformance/fixtures"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var mutatingBeforeValidatingOnCreate = spec.Spec{
	ShortName: "MutatingBeforeValidatingOnCreate",
	Suite:     "ordering",
	Description: "On a create, the mutating webhook is called and answers before the validating webhook is called, " +
		"and both the validating webhook and the stored object carry the mutation.",
	Features:  []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:   spec.Core,
	Seed:      "000 Requirements for extensible admission: object mutations must happen before object validations",
	Manifests: []string{"ordering/configmap.yaml"},
}

var _ = harness.Describe(mutatingBeforeValidatingOnCreate, func(f *harness.Framework) {
	ginkgo.It("calls the mutating webhook first and the validating webhook sees its mutation", func(ctx ginkgo.SpecContext) {
		mutating, err := f.RegisterMutating(ctx, "mutate", harness.Hook{
			Name: "add-marker",
			Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: []fakewebhook.PatchOperation{
				{Op: "add", Path: "/data/mutated", Value: "by the mutating webhook"},
			}},
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		validating, err := f.RegisterValidating(ctx, "validate", harness.Hook{
			Name:      "observe",
			Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Allow},
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		var subject corev1.ConfigMap
		gomega.Expect(fixtures.Decode("ordering/configmap.yaml", &subject, decoder.MutateNamespace(f.Namespace))).To(gomega.Succeed())
		stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &subject, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		journal := f.Env.Webhooks.Journal()
		isSubjectCreate := func(path string) func(fakewebhook.Call) bool {
			return func(c fakewebhook.Call) bool {
				return c.Path == path && c.Operation == "CREATE" && c.Namespace == f.Namespace && c.Name == subject.Name
			}
		}
		mutatingCalls := journal.Where(isSubjectCreate(mutating.Hooks["add-marker"].Path))
		validatingCalls := journal.Where(isSubjectCreate(validating.Hooks["observe"].Path))
		gomega.Expect(mutatingCalls).To(gomega.HaveLen(1), "the mutating webhook must be called once for the create")
		gomega.Expect(validatingCalls).To(gomega.HaveLen(1), "the validating webhook must be called once for the create")
		m, v := mutatingCalls[0], validatingCalls[0]

		// Both calls belong to the spec's single create of this object. (The
		// AdmissionReview uid cannot tie them together: kube-apiserver mints
		// a new one for every webhook call.)
		gomega.Expect(v.UID).NotTo(gomega.Equal(m.UID), "each webhook call carries its own uid")
		gomega.Expect(m.Answered()).To(gomega.BeTrue(), "the mutating webhook's answer must have been sent")
		gomega.Expect(m.RespondedAt.Before(v.ReceivedAt)).To(gomega.BeTrue(),
			"mutation must finish before validation starts: mutating answered at %s, validating called at %s",
			m.Responded, v.Received)

		var validated corev1.ConfigMap
		gomega.Expect(v.DecodeObject(&validated)).To(gomega.Succeed())
		gomega.Expect(validated.Data).To(gomega.HaveKeyWithValue("mutated", "by the mutating webhook"),
			"the validating webhook must see the object as mutated")
		gomega.Expect(stored.Data).To(gomega.HaveKeyWithValue("mutated", "by the mutating webhook"),
			"the stored object must carry the mutation")

		gap := v.ReceivedAt.Sub(m.RespondedAt)
		f.Record(results.Measurement{Name: "mutating-answer-to-validating-call", Value: gap.Seconds() * 1000, Unit: "ms"})
	})
})
