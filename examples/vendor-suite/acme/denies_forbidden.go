package acme

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var deniesForbidden = spec.Spec{
	ShortName: "AcmeDeniesForbiddenConfigMaps",
	Suite:     Suite,
	Description: "A ConfigMap labelled acme.example/forbidden=true is refused with ACME's message, one without the label " +
		"is stored, and ACME's validating webhook is called for the labelled one only.",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	// Seed names the clause of the contract the spec checks: here ACME's.
	Seed: "ACME admission contract 1: configmaps labelled acme.example/forbidden=true are refused",
}

// forbiddenHook is ACME's validating webhook, played by the fake webhook
// server: it denies every call, and its object selector sends it only the
// labelled ConfigMaps.
func forbiddenHook() harness.Hook {
	return harness.Hook{
		Name:           "forbidden",
		Behaviour:      fakewebhook.Behaviour{Action: fakewebhook.Deny, Code: 403, Message: DenyMessage},
		ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{ForbiddenLabel: "true"}},
	}
}

func configMap(name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"k": "v"}}
}

var _ = harness.Describe(deniesForbidden, func(f *harness.Framework) {
	ginkgo.It("refuses a labelled ConfigMap and stores an unlabelled one", func(ctx ginkgo.SpecContext) {
		// RegisterValidating returns once every apiserver replica enforces
		// the configuration, and deletes it after the case.
		reg, err := f.RegisterValidating(ctx, "acme", forbiddenHook())
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		cms := f.Client.CoreV1().ConfigMaps(f.Namespace) // the case's own namespace
		_, err = cms.Create(ctx, configMap("forbidden", map[string]string{ForbiddenLabel: "true"}), metav1.CreateOptions{})
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "a labelled ConfigMap must be refused, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring(DenyMessage))

		_, err = cms.Create(ctx, configMap("allowed", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a ConfigMap without the label must be stored")

		// The journal holds every call the fake server answered.
		calls := f.Env.Webhooks.Journal().ForPath(reg.Hooks["forbidden"].Path)
		gomega.Expect(calls).To(gomega.HaveLen(1), "ACME's webhook is called for the labelled ConfigMap only")
		gomega.Expect(calls[0].Name).To(gomega.Equal("forbidden"))
		gomega.Expect(calls[0].Operation).To(gomega.Equal("CREATE"))
	})
})
