package webhooks

import (
	"context"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
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

// blockerDenies is the message of the policy blocking configurations.
const blockerDenies = "the blocking policy denies this"

// registerPolicyBlocker binds a policy failing every request on the six
// admission configuration kinds labelled for this spec, and waits until it
// is enforced. Neither the policy nor its binding carries the label.
func registerPolicyBlocker(ctx context.Context, f *harness.Framework) {
	resources := make([]string, 0, len(configurationKinds))
	for _, k := range configurationKinds {
		resources = append(resources, k.resource)
	}
	rules := []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{admissionregistrationv1.GroupName}, APIVersions: []string{"*"}, Resources: resources},
	}}}
	name := policyName(f, "blocker")
	gomega.ExpectWithOffset(1, createVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: rules, ObjectSelector: exemptTargetSelector(f)},
			Validations:      []admissionregistrationv1.Validation{{Expression: "false", Message: blockerDenies}},
		}})).To(gomega.Succeed())
	gomega.ExpectWithOffset(1, bindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			// Configurations are cluster-scoped: scope by their labels.
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: exemptTargetSelector(f)}},
	})).To(gomega.Succeed())
	gomega.ExpectWithOffset(1, awaitVAPs(ctx, f)).To(gomega.Succeed())
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
			expectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, vapDenied(f, "blocker", blockerDenies))
		}
	})
})
