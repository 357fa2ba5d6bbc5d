package configurations

import (
	"fmt"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var mutatingPoliciesExempt = spec.Spec{
	ShortName: "MutatingPoliciesCannotBeBlocked",
	Suite:     "webhooks",
	Description: "Webhooks and ValidatingAdmissionPolicies denying everything on admission configurations are not called " +
		"for MutatingAdmissionPolicies and their bindings, which can still be created, updated and deleted.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.ValidatingAdmissionPolicy,
		features.MutatingAdmissionPolicy},
	Profile: spec.Extended,
	Seed:    "002 Goals: do not block the entire cluster",
}

var mutatingPolicyKinds = []configurationKind{mutatingAdmissionPolicies, mutatingAdmissionPolicyBindings}

var _ = harness.Describe(mutatingPoliciesExempt, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("a %s webhook denying every admission-configuration request is bypassed", phase), func(ctx ginkgo.SpecContext) {
			blocker := registerConfigurationBlocker(ctx, f, phase)
			for _, k := range mutatingPolicyKinds {
				gomega.Expect(k.lifecycle(ctx, f)).To(gomega.Succeed(), "a webhook must not be able to block %s", k.resource)
			}
			gomega.Expect(f.Env.Webhooks.Journal().ForPath(blocker.Path)).To(gomega.BeEmpty(),
				"the webhook must never be called for mutating admission policies or their bindings")
		})
	}

	ginkgo.It("a policy denying every admission-configuration request is bypassed", func(ctx ginkgo.SpecContext) {
		registerPolicyBlocker(ctx, f)
		for _, k := range mutatingPolicyKinds {
			gomega.Expect(k.lifecycle(ctx, f)).To(gomega.Succeed(), "a policy must not be able to block %s", k.resource)
		}
		// The blocker is enforced: it denies a webhook configuration.
		_, err := validatingWebhookConfigurations.create(ctx, f)
		speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "blocker", blockerDenies))
	})
})
