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

var webhookAuditAnnotations = spec.Spec{
	ShortName: "WebhookAuditAnnotations",
	Suite:     "webhooks",
	Description: "The auditAnnotations of mutating and validating webhooks' answers reach the request's audit event as " +
		"<webhook name>/<key>, on admitted and denied requests.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.AuditLog},
	Profile:  spec.Extended,
	Seed:     "admission.k8s.io/v1 AdmissionResponse.auditAnnotations: the apiserver prefixes each key with the admission webhook name",
}

var _ = harness.Describe(webhookAuditAnnotations, func(f *harness.Framework) {
	ginkgo.It("annotations of an admitted request, from mutating and validating webhooks", func(ctx ginkgo.SpecContext) {
		m, err := f.RegisterMutating(ctx, "annotate", harness.Hook{Name: "m", Behaviour: fakewebhook.Behaviour{
			AuditAnnotations: map[string]string{"decision": "mutated", "by": "m"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		v, err := f.RegisterValidating(ctx, "annotate", harness.Hook{Name: "v", Behaviour: fakewebhook.Behaviour{
			AuditAnnotations: map[string]string{"decision": "checked"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ann := speckit.CreateAnnotations(ctx, f, cm.Name)
		mName, vName := m.Hooks["m"].FullName, v.Hooks["v"].FullName
		gomega.Expect(ann).To(gomega.HaveKeyWithValue(mName+"/decision", "mutated"), "a mutating webhook's annotation, keyed <webhook name>/<key>")
		gomega.Expect(ann).To(gomega.HaveKeyWithValue(mName+"/by", "m"))
		gomega.Expect(ann).To(gomega.HaveKeyWithValue(vName+"/decision", "checked"), "a validating webhook's annotation, keyed <webhook name>/<key>")
		gomega.Expect(ann).NotTo(gomega.HaveKey("decision"), "keys must carry the webhook's name")
	})

	ginkgo.It("annotations of a webhook that denies", func(ctx ginkgo.SpecContext) {
		v, err := f.RegisterValidating(ctx, "annotate", harness.Hook{Name: "deny", Behaviour: fakewebhook.Behaviour{
			Action: fakewebhook.Deny, Message: "no", AuditAnnotations: map[string]string{"why": "policy 7"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(), "the webhook denies")
		gomega.Expect(speckit.CreateAnnotations(ctx, f, cm.Name)).To(gomega.HaveKeyWithValue(v.Hooks["deny"].FullName+"/why", "policy 7"),
			"a denying webhook's annotation must reach the audit event")
	})
})
