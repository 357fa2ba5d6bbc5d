package policies

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyBindingFirst = spec.Spec{
	ShortName: "PolicyBindingBeforePolicy",
	Suite:     "webhooks",
	Description: "A binding whose policy does not exist is ignored (a ValidatingAdmissionPolicyBinding and a " +
		"MutatingAdmissionPolicyBinding alike): requests it matches are admitted unchanged, without error; once the policy " +
		"is created the binding is enforced within the policy propagation bound (kubectl apply creates bindings first " +
		"whenever they sort first).",
	Features: []features.Name{features.ValidatingAdmissionPolicy, features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBindingSpec.policyName, MutatingAdmissionPolicyBindingSpec.policyName: " +
		"if the referenced resource does not exist, this binding is considered invalid and will be ignored",
}

var _ = harness.Describe(policyBindingFirst, func(f *harness.Framework) {
	create := func(ctx context.Context, name string) (*corev1.ConfigMap, error) {
		return f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, name, map[string]string{"k": "v"}), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}

	ginkgo.It("a ValidatingAdmissionPolicyBinding without its policy admits, then enforces the policy once it exists", func(ctx ginkgo.SpecContext) {
		name := speckit.PolicyName(f, "late")
		gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, ValidationActions: speckit.DenyAction()}})).To(gomega.Succeed())
		// The probe's policy and binding are created after the dangling
		// binding: once the probe is enforced, the binding has been seen.
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())
		_, err := create(ctx, "before")
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a binding whose policy does not exist must be ignored")

		gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: "the late policy denies"}}}})).To(gomega.Succeed())
		gomega.Eventually(ctx, func(ctx context.Context) error {
			_, err := create(ctx, "after")
			return err
		}).WithTimeout(f.Bounds.PolicyPropagation.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(
			gomega.MatchError(gomega.ContainSubstring(speckit.VAPDenied(f, "late", "the late policy denies"))),
			"once the policy exists, the binding created before it is enforced")
	})

	ginkgo.It("a MutatingAdmissionPolicyBinding without its policy admits unchanged, then mutates once the policy exists", func(ctx ginkgo.SpecContext) {
		name := speckit.PolicyName(f, "late")
		bindings := mutatingpolicy.BindingClient(f.Dynamic)
		b := &mutatingpolicy.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Spec: mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: name, MatchResources: speckit.Scoped(f, nil)}}
		_, err := bindings.Create(ctx, b, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, bindings.Delete, name)
		gomega.Expect(speckit.AwaitMAPs(ctx, f, false)).To(gomega.Succeed())
		got, err := create(ctx, "before")
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a binding whose policy does not exist must be ignored")
		gomega.Expect(got.Data).To(gomega.Equal(map[string]string{"k": "v"}))

		gomega.Expect(speckit.CreateMAP(ctx, f, name, mutatingpolicy.MutatingAdmissionPolicySpec{FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Mutations: []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{data: {"late": "applied"}}`)}})).To(gomega.Succeed())
		gomega.Eventually(ctx, func(ctx context.Context) (map[string]string, error) {
			got, err := create(ctx, "after")
			if err != nil {
				return nil, err
			}
			return got.Data, nil
		}).WithTimeout(f.Bounds.PolicyPropagation.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(
			gomega.HaveKeyWithValue("late", "applied"), "once the policy exists, the binding created before it is enforced")
	})
})
