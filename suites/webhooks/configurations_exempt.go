package webhooks

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var configurationsExempt = spec.Spec{
	ShortName: "WebhooksCannotBlockWebhookConfigurations",
	Suite:     "webhooks",
	Description: "A webhook that denies everything on webhook configurations is not called for them: configurations " +
		"can still be created, updated and deleted, so a broken webhook can always be removed.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "002 Goals: as a fallback, admin can always restart an apiserver and guarantee it sees the latest " +
		"config; do not block the entire cluster",
}

// targetLabel marks the webhook configurations the blocking webhook is
// scoped to. The blocker itself does not carry it, so even an apiserver that
// wrongly calls the blocker for configurations can still delete the blocker.
const targetLabel = "admission-conformance.io/exempt-target"

var _ = harness.Describe(configurationsExempt, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("a %s webhook denying every webhook-configuration request is bypassed", phase), func(ctx ginkgo.SpecContext) {
			selector := &metav1.LabelSelector{MatchLabels: map[string]string{targetLabel: f.Namespace}}
			reg, err := register(ctx, f, phase, harness.Hook{
				Name:      "blocker",
				Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "the blocker denies this"},
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
					Rule: admissionregistrationv1.Rule{APIGroups: []string{"admissionregistration.k8s.io"}, APIVersions: []string{"*"},
						Resources: []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"}, Scope: ptr.To(admissionregistrationv1.ClusterScope)},
				}},
				// Configurations are cluster-scoped: scope by their labels.
				NamespaceSelector: &metav1.LabelSelector{},
				ObjectSelector:    selector,
			})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())

			labels := f.Labels()
			labels[targetLabel] = f.Namespace
			ar := f.Client.AdmissionregistrationV1()
			target := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{
				Name: f.Namespace + "-target-" + string(phase), Labels: labels}}
			_, err = ar.ValidatingWebhookConfigurations().Create(ctx, target, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "creating a webhook configuration must not be blockable by a webhook")
			ginkgo.DeferCleanup(ignoreNotFound, ar.ValidatingWebhookConfigurations().Delete, target.Name)
			cur, err := ar.ValidatingWebhookConfigurations().Get(ctx, target.Name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			cur.Annotations = map[string]string{"updated": "yes"}
			_, err = ar.ValidatingWebhookConfigurations().Update(ctx, cur, metav1.UpdateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "updating a webhook configuration must not be blockable by a webhook")
			gomega.Expect(ar.ValidatingWebhookConfigurations().Delete(ctx, target.Name, metav1.DeleteOptions{})).To(gomega.Succeed(),
				"deleting a webhook configuration must not be blockable by a webhook")
			gomega.Expect(f.Env.Webhooks.Journal().ForPath(reg.Hooks["blocker"].Path)).To(gomega.BeEmpty(),
				"the webhook must never be called for webhook configurations")
		})
	}
})
