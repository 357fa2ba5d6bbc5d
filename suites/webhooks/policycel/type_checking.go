package policycel

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyTypeChecking = spec.Spec{
	ShortName: "PolicyTypeChecking",
	Suite:     "webhooks",
	Description: "The controller manager type-checks each ValidatingAdmissionPolicy generation against the schema of the kinds it matches: " +
		"status.typeChecking lists a warning per ill-typed expression or messageExpression (its fieldRef, the kind, the CEL error), none for a well-typed one, " +
		"and status.observedGeneration says which generation was checked; a change fixing the expressions clears the warnings. " +
		"A rule is checked against at most 10 kinds (those of its first sorted resources), listed by group, version and kind; " +
		"resources that resolve to no kind are skipped, and a rule with a wildcard group is not checked.",
	Features: []features.Name{features.ValidatingAdmissionPolicy, features.ControllerManager},
	// Extended: the status is a controller manager's work, an optional feature.
	Profile: spec.Extended,
	Seed:    "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.status (observedGeneration, typeChecking.expressionWarnings)",
}

var _ = harness.Describe(policyTypeChecking, func(f *harness.Framework) {
	api := func() interface {
		Get(context.Context, string, metav1.GetOptions) (*admissionregistrationv1.ValidatingAdmissionPolicy, error)
		Update(context.Context, *admissionregistrationv1.ValidatingAdmissionPolicy, metav1.UpdateOptions) (*admissionregistrationv1.ValidatingAdmissionPolicy, error)
	} {
		return f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	}
	// checked waits until the status says the policy's current generation
	// was type-checked, and returns the warnings by fieldRef.
	checked := func(ctx context.Context, name string) map[string]string {
		var warnings map[string]string
		gomega.Eventually(ctx, func(g gomega.Gomega) {
			p, err := api().Get(ctx, name, metav1.GetOptions{})
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(p.Status.ObservedGeneration).To(gomega.Equal(p.Generation), "status.observedGeneration of %s must reach its generation", name)
			warnings = map[string]string{}
			if p.Status.TypeChecking != nil { // no warnings may leave it out
				for _, w := range p.Status.TypeChecking.ExpressionWarnings {
					warnings[w.FieldRef] = w.Warning
				}
			}
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
		return warnings
	}
	validations := func(exprs ...[2]string) []admissionregistrationv1.Validation {
		out := make([]admissionregistrationv1.Validation, len(exprs))
		for i, e := range exprs {
			out[i] = admissionregistrationv1.Validation{Expression: e[0], MessageExpression: e[1]}
		}
		return out
	}
	policy := func(ctx context.Context, suffix string, v []admissionregistrationv1.Validation) string {
		name := speckit.PolicyName(f, suffix)
		gomega.Expect(speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(admissionregistrationv1.Fail), Validations: v}})).To(gomega.Succeed())
		return name
	}

	ginkgo.It("warns per ill-typed expression against the matched kind's schema, and a fix clears the warnings", func(ctx ginkgo.SpecContext) {
		// ConfigMap data values are strings: comparing one to an int and
		// multiplying one by an int have no CEL overload. Both compile when the
		// policy is created (object is dynamically typed there).
		ill := policy(ctx, "ill-typed", validations(
			[2]string{"object.data.k == 1", ""},
			[2]string{"true", "'n=' + string(object.data.k * 2)"},
			[2]string{"object.data.k == 'v'", "'value ' + object.data.k"},
		))
		typed := policy(ctx, "well-typed", validations([2]string{"object.data.k == 'v'", "'value ' + object.data.k"}))

		warnings := checked(ctx, ill)
		gomega.Expect(warnings).To(gomega.HaveLen(2), "one warning per ill-typed expression, none for the well-typed third validation: %v", warnings)
		for _, ref := range []string{"spec.validations[0].expression", "spec.validations[1].messageExpression"} {
			gomega.Expect(warnings).To(gomega.HaveKey(ref), "a warning for %s", ref)
			gomega.Expect(warnings[ref]).To(gomega.And(gomega.ContainSubstring("Kind=ConfigMap"), gomega.ContainSubstring("no matching overload")),
				"the warning for %s names the kind checked against and the CEL error", ref)
		}
		gomega.Expect(checked(ctx, typed)).To(gomega.BeEmpty(), "a well-typed policy gets no warning")

		// A live change: the new generation is checked again.
		gomega.Eventually(ctx, func() error {
			p, err := api().Get(ctx, ill, metav1.GetOptions{})
			if err != nil {
				return err
			}
			p.Spec.Validations = validations([2]string{"object.data.k == '1'", ""}, [2]string{"true", "object.data.k + '1'"})
			_, err = api().Update(ctx, p, metav1.UpdateOptions{})
			return err
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
		gomega.Expect(checked(ctx, ill)).To(gomega.BeEmpty(), "fixing the expressions must clear the warnings of the new generation")
	})

	describeTypeCheckedKinds(f)
})
