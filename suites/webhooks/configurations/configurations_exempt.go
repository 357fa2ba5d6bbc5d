package configurations

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

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
