package review

import (
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookAuditAnnotationKeys = spec.Spec{
	ShortName: "WebhookAuditAnnotationKeys",
	Suite:     "webhooks",
	Description: "A webhook's auditAnnotations whose key, prefixed with the webhook's name, is not a qualified name " +
		"(\"a/b\", \"bad key!\") are dropped without failing the request, the valid ones kept, for mutating and validating " +
		"webhooks; when two mutating webhooks of one name (in two configurations), or a mutating webhook and a " +
		"ValidatingAdmissionPolicy of its name, write the same audit annotation key, the first written is kept and the later discarded.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.ValidatingAdmissionPolicy, features.AuditLog},
	Profile:  spec.Extended,
	Seed: "admission.k8s.io/v1 AdmissionResponse.auditAnnotations (\"The key will be prefixed with the admission webhook name " +
		"(e.g. imagepolicy.example.com/error=image-blacklisted)\"); admissionregistration.k8s.io/v1 AuditAnnotation.key " +
		"(\"If an admission webhook uses an identical audit annotation key ... the first annotation written with the key will " +
		"be included in the audit event and all subsequent annotations with the same key will be discarded\")",
}

var _ = harness.Describe(webhookAuditAnnotationKeys, func(f *harness.Framework) {
	// withPrefix is the annotations of ann whose key starts with prefix.
	withPrefix := func(ann map[string]string, prefix string) map[string]string {
		out := map[string]string{}
		for k, v := range ann {
			if strings.HasPrefix(k, prefix) {
				out[k] = v
			}
		}
		return out
	}
	unusable := map[string]string{"a/b": "1", "bad key!": "2", "ok": "3"}

	ginkgo.It("keys that are no qualified name once prefixed are dropped, the request admitted, the valid key kept", func(ctx ginkgo.SpecContext) {
		m, err := f.RegisterMutating(ctx, "keys", harness.Hook{Name: "m", Behaviour: fakewebhook.Behaviour{AuditAnnotations: unusable}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		v, err := f.RegisterValidating(ctx, "keys", harness.Hook{Name: "v", Behaviour: fakewebhook.Behaviour{AuditAnnotations: unusable}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "an unusable audit annotation key does not fail the request")
		ann := speckit.CreateAnnotations(ctx, f, cm.Name)
		for _, name := range []string{m.Hooks["m"].FullName, v.Hooks["v"].FullName} {
			gomega.Expect(withPrefix(ann, name+"/")).To(gomega.Equal(map[string]string{name + "/ok": "3"}),
				"of %s's annotations only <webhook name>/ok is a qualified name: %s/a/b and %s/bad key! are dropped", name, name, name)
		}
	})

	ginkgo.It("two mutating webhooks of one name (in two configurations) writing the same key: the first called is kept", func(ctx ginkgo.SpecContext) {
		// Configurations are called in the order of their names: <ns>-one first.
		one, err := f.RegisterMutating(ctx, "one", harness.Hook{Name: "same", Behaviour: fakewebhook.Behaviour{
			AuditAnnotations: map[string]string{"shared": "from the first", "first": "1"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		two, err := f.RegisterMutating(ctx, "two", harness.Hook{Name: "same", Behaviour: fakewebhook.Behaviour{
			AuditAnnotations: map[string]string{"shared": "from the second", "second": "2"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		name := one.Hooks["same"].FullName
		gomega.Expect(two.Hooks["same"].FullName).To(gomega.Equal(name), "both webhooks have one name")
		cm := speckit.Subject(f.Namespace)
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a discarded audit annotation does not fail the request")
		for _, hook := range []harness.RegisteredHook{one.Hooks["same"], two.Hooks["same"]} {
			gomega.Expect(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
				return c.Path == hook.Path && c.Name == cm.Name && c.Namespace == f.Namespace
			})).To(gomega.HaveLen(1), "each webhook is called once")
		}
		gomega.Expect(withPrefix(speckit.CreateAnnotations(ctx, f, cm.Name), name+"/")).To(gomega.Equal(map[string]string{
			name + "/shared": "from the first",
			name + "/first":  "1",
			name + "/second": "2",
		}), "the first webhook wrote %s/shared first: the second's value is discarded, its other key kept", name)
	})

	ginkgo.It("a policy named like a mutating webhook writing the same key: the webhook's value, written first, is kept", func(ctx ginkgo.SpecContext) {
		m, err := f.RegisterMutating(ctx, "shared", harness.Hook{Name: "first", Behaviour: fakewebhook.Behaviour{
			AuditAnnotations: map[string]string{"shared": "from the webhook"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		name := m.Hooks["first"].FullName
		gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				AuditAnnotations: []admissionregistrationv1.AuditAnnotation{
					{Key: "shared", ValueExpression: "'from the policy'"},
					{Key: "own", ValueExpression: "'policy only'"},
				}}})).To(gomega.Succeed())
		gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, ValidationActions: speckit.DenyAction()}})).To(gomega.Succeed())
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())

		cm := speckit.Subject(f.Namespace)
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a discarded audit annotation does not fail the request")
		gomega.Expect(withPrefix(speckit.CreateAnnotations(ctx, f, cm.Name), name+"/")).To(gomega.Equal(map[string]string{
			name + "/shared": "from the webhook",
			name + "/own":    "policy only",
		}), "the mutating webhook wrote %s/shared first: the policy's value is discarded, its other key kept", name)
	})
})
