package review

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookWarnings = spec.Spec{
	ShortName: "WebhookWarnings",
	Suite:     "webhooks",
	Description: "The warnings of mutating and validating webhooks' answers reach the client as warning headers, each " +
		"once, on admitted requests and on requests a webhook denies.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "admission.k8s.io/v1 AdmissionResponse.warnings: a list of warning messages to return to the requesting API client",
}

var _ = harness.Describe(webhookWarnings, func(f *harness.Framework) {
	ginkgo.It("warnings of an admitted request, from mutating and validating webhooks", func(ctx ginkgo.SpecContext) {
		_, err := f.RegisterMutating(ctx, "warn", harness.Hook{Name: "m", Behaviour: fakewebhook.Behaviour{
			Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey, Warnings: []string{"mutating says one", "mutating says two"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = f.RegisterValidating(ctx, "warn", harness.Hook{Name: "v", Behaviour: fakewebhook.Behaviour{Warnings: []string{"validating says three"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		client, w := speckit.WarningClient(f)
		created, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(created.Data).To(gomega.HaveKey("mutated"), "a warning does not stop the patch")
		gomega.Expect(w.Take()).To(gomega.ConsistOf("mutating says one", "mutating says two", "validating says three"),
			"every webhook warning must reach the client once")
	})

	ginkgo.It("warnings of a webhook that denies", func(ctx ginkgo.SpecContext) {
		_, err := f.RegisterValidating(ctx, "warn", harness.Hook{Name: "deny", Behaviour: fakewebhook.Behaviour{
			Action: fakewebhook.Deny, Message: "no", Warnings: []string{"denied, and here is why"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		client, w := speckit.WarningClient(f)
		_, err = client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(), "the webhook denies")
		gomega.Expect(w.Take()).To(gomega.ConsistOf("denied, and here is why"), "a denying webhook's warning must reach the client")
	})
})
