package initializers

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var webhookAddsGatesOnlyAtCreate = spec.Spec{
	ShortName: "WebhookAddsGatesOnlyAtCreate",
	Suite:     "initializers",
	Description: "A mutating webhook can hold a pod by adding a scheduling gate to its CREATE; a webhook adding a gate to " +
		"an UPDATE makes the update fail with upstream's message.",
	Features: []features.Name{features.MutatingWebhook},
	Profile:  spec.Core,
	Seed: "002 Background: the initializer admission controller sets the default initializers of newly created " +
		"resources (today: a mutating webhook adds gates at creation)",
	Isolation: usesInitializers,
}

// podRules matches one operation on pods.
func podRules(op admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{op},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
			Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

var _ = harness.Describe(webhookAddsGatesOnlyAtCreate, func(f *harness.Framework) {
	ginkgo.It("holds a pod with a gate added at CREATE, and fails an UPDATE the webhook adds a gate to", func(ctx ginkgo.SpecContext) {
		atCreate, atUpdate := gate(f, "at-create"), gate(f, "at-update")
		_, err := f.RegisterMutating(ctx, "gates",
			harness.Hook{Name: "create", Rules: podRules(admissionregistrationv1.Create), Behaviour: fakewebhook.Behaviour{
				Action: fakewebhook.Patch, Patch: []fakewebhook.PatchOperation{
					{Op: "add", Path: "/spec/schedulingGates", Value: []map[string]string{{"name": atCreate}}},
				}}},
			harness.Hook{Name: "update", Rules: podRules(admissionregistrationv1.Update), Behaviour: fakewebhook.Behaviour{
				Action: fakewebhook.Patch, Patch: []fakewebhook.PatchOperation{
					{Op: "add", Path: "/spec/schedulingGates/-", Value: map[string]string{"name": atUpdate}},
				}}},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		pods := f.Client.CoreV1().Pods(f.Namespace)
		p, err := pods.Create(ctx, newPod(f.Namespace, "held"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(gateNames(p)).To(gomega.Equal([]string{atCreate}), "the gate the webhook added at CREATE is stored")

		_, err = pods.Patch(ctx, p.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"touched":"yes"}}}`), metav1.PatchOptions{})
		gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "an update the webhook adds a gate to: want 422 Invalid, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("only deletion is allowed, but found new scheduling gate '" + atUpdate + "'"))
		got, err := pods.Get(ctx, p.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(gateNames(got)).To(gomega.Equal([]string{atCreate}))
		gomega.Expect(got.Labels).NotTo(gomega.HaveKey("touched"), "the failed update was stored")
	})
})
