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
	Description: "A webhook that denies everything on webhook configurations, ValidatingAdmissionPolicies and their " +
		"bindings is not called for them: they can still be created, updated and deleted, so a broken webhook can always be removed.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "002 Goals: as a fallback, admin can always restart an apiserver and guarantee it sees the latest " +
		"config; do not block the entire cluster",
}

var _ = harness.Describe(configurationsExempt, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("a %s webhook denying every admission-configuration request is bypassed", phase), func(ctx ginkgo.SpecContext) {
			blocker := registerConfigurationBlocker(ctx, f, phase)
			for _, k := range []configurationKind{validatingWebhookConfigurations, mutatingWebhookConfigurations,
				validatingAdmissionPolicies, validatingAdmissionPolicyBindings} {
				gomega.Expect(k.lifecycle(ctx, f)).To(gomega.Succeed(), "a webhook must not be able to block %s", k.resource)
			}
			gomega.Expect(f.Env.Webhooks.Journal().ForPath(blocker.Path)).To(gomega.BeEmpty(),
				"the webhook must never be called for admission configuration objects")
		})
	}
})

// registerConfigurationBlocker registers a webhook denying every request on
// the six admission configuration kinds labelled for this spec. The blocker
// itself does not carry the label, so even an apiserver that wrongly calls
// it for configurations can still delete it.
func registerConfigurationBlocker(ctx ginkgo.SpecContext, f *harness.Framework, phase fakewebhook.Phase) harness.RegisteredHook {
	resources := make([]string, 0, len(configurationKinds))
	for _, k := range configurationKinds {
		resources = append(resources, k.resource)
	}
	reg, err := register(ctx, f, phase, harness.Hook{
		Name:      "blocker",
		Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "the blocker denies this"},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{admissionregistrationv1.GroupName}, APIVersions: []string{"*"},
				Resources: resources, Scope: ptr.To(admissionregistrationv1.ClusterScope)},
		}},
		// Configurations are cluster-scoped: scope by their labels.
		NamespaceSelector: &metav1.LabelSelector{},
		ObjectSelector:    exemptTargetSelector(f),
	})
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return reg.Hooks["blocker"]
}
