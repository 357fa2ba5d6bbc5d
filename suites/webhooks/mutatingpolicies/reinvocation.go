package mutatingpolicies

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var mutatingPolicyReinvocation = spec.Spec{
	ShortName: "MutatingPolicyReinvocation",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy with reinvocationPolicy IfNeeded is invoked again after a mutating webhook " +
		"that runs after it changed the object, and sees the change; with Never it is not.",
	Features: []features.Name{features.MutatingAdmissionPolicy, features.MutatingWebhook},
	Profile:  spec.Extended,
	Seed:     "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy.spec.reinvocationPolicy",
}

var _ = harness.Describe(mutatingPolicyReinvocation, func(f *harness.Framework) {
	for _, tc := range []struct {
		policy admissionregistrationv1.ReinvocationPolicyType
		copied string
	}{
		{admissionregistrationv1.IfNeededReinvocationPolicy, "by the webhook"},
		{admissionregistrationv1.NeverReinvocationPolicy, "none"},
	} {
		ginkgo.It("reinvocationPolicy "+string(tc.policy), func(ctx ginkgo.SpecContext) {
			// The policy copies data.mutated, which the webhook (called after
			// every mutating policy) adds, into data.copied.
			s := mutatingpolicy.MutatingAdmissionPolicySpec{
				FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
				ReinvocationPolicy: tc.policy,
				// Not the harness's marker requests: those must reach the marker webhook untouched.
				MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "not-a-marker",
					Expression: "!has(object.metadata.labels) || !('" + harness.MarkerLabel + "' in object.metadata.labels)"}},
				Mutations: []mutatingpolicy.Mutation{speckit.ApplyConfiguration(
					`Object{data: {"copied": has(object.data) && "mutated" in object.data ? object.data["mutated"] : "none"}}`)},
			}
			gomega.Expect(speckit.MAPWith(ctx, f, "copy", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
			reg, err := f.RegisterMutating(ctx, "after-policy", harness.Hook{
				Name: "m1", Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey},
			})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			cm := speckit.Subject(f.Namespace)
			got, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(got.Data).To(gomega.HaveKeyWithValue("mutated", "by the webhook"), "the webhook's patch must be applied")
			gomega.Expect(got.Data).To(gomega.HaveKeyWithValue("copied", tc.copied),
				"reinvocationPolicy %s: the policy must %sbe invoked again after the webhook changed the object", tc.policy,
				map[bool]string{true: "", false: "not "}[tc.policy == admissionregistrationv1.IfNeededReinvocationPolicy])
			gomega.Expect(speckit.CallsTo(f, reg.Hooks["m1"], f.Namespace, cm.Name)).To(gomega.HaveLen(1),
				"the webhook (reinvocationPolicy Never) must be called once")
		})
	}
})
