package configurations

import (
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policiesExempt = spec.Spec{
	ShortName: "PoliciesCannotBlockPolicies",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy denying everything on admission configurations is not evaluated for " +
		"ValidatingAdmissionPolicies and their bindings, which can still be created, updated and deleted, but does deny " +
		"webhook configurations, which policies are not exempt for.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "002 Goals: do not block the entire cluster",
}

var _ = harness.Describe(policiesExempt, func(f *harness.Framework) {
	ginkgo.It("a policy denying every admission-configuration request is bypassed for policies and bindings, not for webhook configurations", func(ctx ginkgo.SpecContext) {
		registerPolicyBlocker(ctx, f)
		for _, k := range []configurationKind{validatingAdmissionPolicies, validatingAdmissionPolicyBindings} {
			gomega.Expect(k.lifecycle(ctx, f)).To(gomega.Succeed(), "a policy must not be able to block %s", k.resource)
		}
		// Policies are exempt only for the policy kinds: the blocker is
		// enforced, and denies the webhook configurations.
		for _, k := range []configurationKind{validatingWebhookConfigurations, mutatingWebhookConfigurations} {
			_, err := k.create(ctx, f)
			speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "blocker", blockerDenies))
		}
	})
})
