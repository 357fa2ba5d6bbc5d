package ordering

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var invalidObjectBeforeValidating = spec.Spec{
	ShortName: "InvalidObjectNeverReachesValidating",
	Suite:     "ordering",
	Description: "An object that fails API validation (an invalid ConfigMap key) is rejected with 422 Invalid after " +
		"mutating admission was called, and never reaches validating admission.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "000 REST flows, Create, proposed behaviour: admit.ApplyMutations; r.Validate (strategy.Validate); " +
		"admit.Validate — an object r.Validate rejects never reaches admit.Validate",
	Manifests: []string{"ordering/configmap.yaml"},
}

// invalidKey is not a valid ConfigMap key: keys are [-._a-zA-Z0-9]+.
const invalidKey = "not a valid key!"

// Seed step checked: r.Validate sits between admit.ApplyMutations and
// admit.Validate, so an object strategy validation rejects was mutated but is
// never validated by admission. kube-apiserver 1.36 does exactly this
// (BeforeCreate fails before the registry calls createValidation).
var _ = harness.Describe(invalidObjectBeforeValidating, func(f *harness.Framework) {
	ginkgo.It("rejects it with 422 between the two admission phases", func(ctx ginkgo.SpecContext) {
		v, err := f.RegisterValidating(ctx, "validate", harness.Hook{Name: "after", Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		m, err := f.RegisterMutating(ctx, "mutate", harness.Hook{Name: "before", Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		nonce := newNonce()
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		cm.Data[invalidKey] = "rejected by API validation"
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "the create must fail API validation with 422 Invalid, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring(invalidKey), "the 422 must be about the invalid key")

		mutatingPath, validatingPath := m.Hooks["before"].Path, v.Hooks["after"].Path
		all, err := requestCalls(ctx, f, nonce, mutatingPath, validatingPath)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(all.onPath(mutatingPath)).To(gomega.HaveLen(1), "mutating admission runs before API validation, so it must be called")
		gomega.Expect(all.onPath(validatingPath)).To(gomega.BeEmpty(), "an object API validation rejects must never reach validating admission")
	})
})
