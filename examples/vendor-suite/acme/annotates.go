package acme

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var annotates = spec.Spec{
	ShortName: "AcmeAnnotatesConfigMaps",
	Suite:     Suite,
	Description: "ACME's mutating webhook adds the acme.example/checked annotation to every ConfigMap created; the stored " +
		"object has it, and ACME's validating webhook already sees it.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "ACME admission contract 2: every configmap stored carries acme.example/checked, set before ACME validates it",
}

var _ = harness.Describe(annotates, func(f *harness.Framework) {
	ginkgo.It("stores the annotation and validates the annotated object", func(ctx ginkgo.SpecContext) {
		_, err := f.RegisterMutating(ctx, "acme", harness.Hook{
			Name: "checked",
			Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: []fakewebhook.PatchOperation{
				// A ConfigMap created without annotations has no map to add to.
				{Op: "add", Path: "/metadata/annotations", Value: map[string]string{CheckedAnnotation: "true"}},
			}},
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		reg, err := f.RegisterValidating(ctx, "acme", harness.Hook{Name: "observe"}) // allows, and journals what it saw
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, configMap("plain", nil), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(created.Annotations).To(gomega.HaveKeyWithValue(CheckedAnnotation, "true"), "the stored object")

		calls := f.Env.Webhooks.Journal().ForPath(reg.Hooks["observe"].Path)
		gomega.Expect(calls).To(gomega.HaveLen(1))
		var seen corev1.ConfigMap
		gomega.Expect(calls[0].DecodeObject(&seen)).To(gomega.Succeed())
		gomega.Expect(seen.Annotations).To(gomega.HaveKeyWithValue(CheckedAnnotation, "true"), "the object ACME validates")
	})
})
