package mutatingpolicies

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var mutatingPolicyPatchDefaulted = spec.Spec{
	ShortName: "MutatingPolicyPatchDefaulted",
	Suite:     "webhooks",
	Description: "What a MutatingAdmissionPolicy's mutation adds is defaulted like what the client sent: a container " +
		"an ApplyConfiguration or a JSONPatch adds without terminationMessagePath, terminationMessagePolicy and " +
		"imagePullPolicy gets their defaults before validation and storage.",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed: "000 Proposed create flow: mutations apply to the decoded request object, which the strategy and the " +
		"validators then see (MutatingAdmissionPolicy: the patched object is defaulted after each policy)",
}

var _ = harness.Describe(mutatingPolicyPatchDefaulted, func(f *harness.Framework) {
	const image = "registry.invalid/admission-conformance/added:1"
	for _, tc := range []struct {
		patchType string
		mutation  mutatingpolicy.Mutation
	}{
		{"ApplyConfiguration", speckit.ApplyConfiguration(`Object{spec: Object.spec{containers: [Object.spec.containers{name: "added", image: "` + image + `"}]}}`)},
		{"JSONPatch", speckit.JSONPatch(`[JSONPatch{op: "add", path: "/spec/containers/-", value: Object.spec.containers{name: "added", image: "` + image + `"}}]`)},
	} {
		ginkgo.It("a container added by a "+tc.patchType+" mutation is defaulted before validation and storage", func(ctx ginkgo.SpecContext) {
			pod := speckit.PendingPod(f.Namespace, "patched")
			s := mutatingpolicy.MutatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{
					ObjectSelector: speckit.Selecting(pod),
					ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
					}}},
				},
				Mutations: []mutatingpolicy.Mutation{tc.mutation},
			}
			gomega.Expect(speckit.MAPWith(ctx, f, "adds-container", s, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())

			created, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the mutated pod must be defaulted and pass validation")
			gomega.Expect(created.Spec.Containers).To(gomega.HaveLen(2), "the %s mutation must add a container", tc.patchType)
			speckit.ExpectDefaultedContainer(created.Spec.Containers[1], "in the stored object")
		})
	}
})
