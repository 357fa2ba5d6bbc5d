package observability

import (
	"context"
	"fmt"
	"strings"

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

var policyCheckMetrics = spec.Spec{
	ShortName: "PolicyCheckMetrics",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy counts in apiserver_validating_admission_policy_check_total, with one sample of " +
		"check_duration_seconds each, one check per failed validation per validationAction of the binding (deny, warn, " +
		"audit), one per validation that fails to evaluate (allow under failurePolicy Ignore, deny under Fail, error_type " +
		"invalid_error) and one per request whose validations together ran out of the binding's cost budget (error_type out_of_budget).",
	Features: []features.Name{features.ValidatingAdmissionPolicy, features.APIServerMetrics},
	Profile:  spec.Extended,
	Seed:     "KEP-3488 CEL admission control (metrics); k8s.io/apiserver v0.37.2 plugin/policy/validating/metrics",
}

var mutatingPolicyCheckMetrics = spec.Spec{
	ShortName: "MutatingPolicyCheckMetrics",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy counts in apiserver_mutating_admission_policy_check_total, with one sample of " +
		"check_duration_seconds each, one check per mutation applied (no_error), one per mutation that fails to evaluate " +
		"(invalid_error) and one per mutation whose variables together run out of the policy's cost budget (out_of_budget; " +
		"failurePolicy Fail denies naming the budget).",
	Features: []features.Name{features.MutatingAdmissionPolicy, features.APIServerMetrics},
	Profile:  spec.Extended,
	Seed:     "KEP-3962 mutating admission policies (metrics); k8s.io/apiserver v0.37.2 plugin/policy/mutating/metrics",
}

// documentedDenial maps the error_type the pinned apiserver gives a
// validation that evaluated to false to the one its metrics document for
// an expression that returned without an error: validating/errors.go
// ErrorType calls every decision but an admit an error (invalid_error
// unless the message starts with "compilation" or the cost-budget text),
// though metrics.go says no_error is for an expression that returns
// without an error. Only cases whose expressions never fail use it.
func documentedDenial(labels map[string]string) map[string]string {
	if labels["error_type"] == "invalid_error" {
		labels["error_type"] = "no_error"
	}
	return labels
}

// failsToEvaluate reads a key the objects do not have.
const failsToEvaluate = "object.data['absent'] == 'x'"

var _ = harness.Describe(policyCheckMetrics, func(f *harness.Framework) {
	read := []string{speckit.VAPChecks, speckit.VAPCheckDuration}

	ginkgo.It("failed validations: one check per failed expression per action of each binding", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Validations: []admissionregistrationv1.Validation{
				{Expression: "true", Message: "never fails"},
				{Expression: speckit.RejectsBad, Message: "verdict is bad"},
				{Expression: "object.data['verdict'] != 'bad'", Message: "verdict is still bad"},
			},
		}
		audited := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: []admissionregistrationv1.ValidationAction{
			admissionregistrationv1.Warn, admissionregistrationv1.Audit}}
		gomega.Expect(speckit.VAPAndBinding(ctx, f, "actions", s, audited)).To(gomega.Succeed())
		policy, auditing, denying := speckit.PolicyName(f, "actions"), speckit.PolicyName(f, "actions"), speckit.PolicyName(f, "actions-deny")
		gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: denying},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy, ValidationActions: speckit.DenyAction()}})).To(gomega.Succeed())
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())

		before := speckit.MustScrapeMetrics(ctx, f, read...)
		for i := range 2 {
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, fmt.Sprintf("bad-%d", i), "bad"), metav1.CreateOptions{})
			speckit.ExpectPolicyDenial(err, 422, metav1.StatusReasonInvalid, fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: verdict is bad", policy, denying))
		}
		after := speckit.MustScrapeMetrics(ctx, f, read...)
		w := speckit.Deltas{}
		for binding, actions := range map[string][]string{auditing: {"warn", "audit"}, denying: {"deny"}} {
			for _, a := range actions {
				w.Add(4, speckit.Lbl("policy", policy, "policy_binding", binding, "error_type", "no_error", "enforcement_action", a))
			}
		}
		for _, metric := range []string{speckit.VAPChecks, speckit.VAPCheckDuration} {
			expectMovedBy(before, after, metric, speckit.Lbl("policy", policy), speckit.CountOf, documentedDenial, w,
				"2 requests × 2 failed expressions, once per action of each binding; the passing expression is no check")
		}
	})

	ginkgo.It("validations that fail to evaluate: allow under failurePolicy Ignore, deny under Fail, error_type invalid_error", func(ctx ginkgo.SpecContext) {
		expectChecksPerFailurePolicy(ctx, f, []admissionregistrationv1.Validation{{Expression: failsToEvaluate, Message: "never evaluates"}},
			"invalid_error", "one check per request whose validation failed to evaluate", func(ctx context.Context, i int) {
				_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, fmt.Sprintf("any-%d", i), "any"), metav1.CreateOptions{})
				gomega.Expect(err).To(gomega.HaveOccurred(), "the policy under failurePolicy Fail denies")
			})
	})

	ginkgo.It("validations together over the binding's cost budget: one check per request, error_type out_of_budget, allow under Ignore, deny under Fail", func(ctx ginkgo.SpecContext) {
		expectChecksPerFailurePolicy(ctx, f, overBudget(),
			"out_of_budget", "one check per request whose validations ran out of the binding's budget, none per validation", func(ctx context.Context, i int) {
				_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ItemsConfigMap(f, fmt.Sprintf("mid-%d", i), speckit.MidItems, "good"), metav1.CreateOptions{})
				speckit.ExpectPolicyDenial(err, 422, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "fail", speckit.BudgetExceeded))
			})
	})
})

// expectChecksPerFailurePolicy binds validations in two policies, one
// failurePolicy Ignore (suffix ignore), one Fail (suffix fail), sends two
// requests both match, and expects each policy to count one check per
// request with errorType and its failure policy's action (allow, deny).
func expectChecksPerFailurePolicy(ctx context.Context, f *harness.Framework, validations []admissionregistrationv1.Validation,
	errorType, why string, send func(ctx context.Context, i int)) {
	for suffix, fp := range map[string]admissionregistrationv1.FailurePolicyType{"ignore": admissionregistrationv1.Ignore, "fail": admissionregistrationv1.Fail} {
		gomega.ExpectWithOffset(1, speckit.VAPAndBinding(ctx, f, suffix, admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(fp), Validations: validations},
			admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
	}
	gomega.ExpectWithOffset(1, speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())
	read := []string{speckit.VAPChecks, speckit.VAPCheckDuration}
	before := speckit.MustScrapeMetrics(ctx, f, read...)
	for i := range 2 {
		send(ctx, i)
	}
	after := speckit.MustScrapeMetrics(ctx, f, read...)
	for suffix, action := range map[string]string{"ignore": "allow", "fail": "deny"} {
		name := speckit.PolicyName(f, suffix)
		for _, metric := range read {
			speckit.ExpectMoved(before, after, metric, speckit.Lbl("policy", name),
				speckit.Deltas{}.Add(2, speckit.Lbl("policy", name, "policy_binding", name, "error_type", errorType, "enforcement_action", action)), why)
		}
	}
}

// overBudget is 13 validations of 797,582 each on a speckit.MidItems object: over a
// binding's 10,000,000 runtime budget (cel_errors_and_budget.go).
func overBudget() []admissionregistrationv1.Validation {
	validations := make([]admissionregistrationv1.Validation, 13)
	for i := range validations {
		validations[i] = admissionregistrationv1.Validation{Expression: speckit.Heavy, Message: fmt.Sprintf("heavy %d is false", i)}
	}
	return validations
}

var _ = harness.Describe(mutatingPolicyCheckMetrics, func(f *harness.Framework) {
	ginkgo.It("one check per mutation: no_error when applied, invalid_error when it fails to evaluate", func(ctx ginkgo.SpecContext) {
		// The first policy is created without waiting; speckit.MAPWith waits for both.
		applied := speckit.PolicyName(f, "applied")
		gomega.Expect(speckit.MAPAndBinding(ctx, f, "applied", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Mutations: []mutatingpolicy.Mutation{
				speckit.ApplyConfiguration(`Object{data: {"applied": "yes"}}`),
				speckit.JSONPatch(`[JSONPatch{op: "add", path: "/data/patched", value: "yes"}]`),
			},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		gomega.Expect(speckit.MAPWith(ctx, f, "erroring", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Ignore),
			Mutations: []mutatingpolicy.Mutation{
				speckit.JSONPatch(`[JSONPatch{op: "add", path: "/data/copy", value: object.data["absent"]}]`),
				speckit.ApplyConfiguration(`Object{data: {"after": "applied"}}`),
			},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		erroring := speckit.PolicyName(f, "erroring")

		read := []string{speckit.MAPChecks, speckit.MAPCheckDuration}
		before := speckit.MustScrapeMetrics(ctx, f, read...)
		for i := range 2 {
			got, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, fmt.Sprintf("subject-%d", i), map[string]string{"k": "v"}), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(got.Data).To(gomega.Equal(map[string]string{"k": "v", "applied": "yes", "patched": "yes", "after": "applied"}),
				"both policies applied their mutations, but for the one that failed to evaluate")
		}
		after := speckit.MustScrapeMetrics(ctx, f, read...)
		for _, metric := range []string{speckit.MAPChecks, speckit.MAPCheckDuration} {
			speckit.ExpectMoved(before, after, metric, speckit.Lbl("policy", applied),
				speckit.Deltas{}.Add(4, speckit.Lbl("policy", applied, "policy_binding", applied, "error_type", "no_error")),
				"2 requests × 2 mutations applied")
			speckit.ExpectMoved(before, after, metric, speckit.Lbl("policy", erroring), speckit.Deltas{}.
				Add(2, speckit.Lbl("policy", erroring, "policy_binding", erroring, "error_type", "invalid_error")).
				Add(2, speckit.Lbl("policy", erroring, "policy_binding", erroring, "error_type", "no_error")),
				"per request, the mutation that failed to evaluate and the one after it, applied")
		}
	})

	ginkgo.It("a mutation whose variables together run out of the policy's cost budget: error_type out_of_budget", func(ctx ginkgo.SpecContext) {
		variables := make([]admissionregistrationv1.Variable, 13)
		refs := make([]string, len(variables))
		for i := range variables {
			variables[i] = admissionregistrationv1.Variable{Name: fmt.Sprintf("v%d", i), Expression: speckit.Heavy}
			refs[i] = fmt.Sprintf("variables.v%d", i)
		}
		for suffix, fp := range map[string]admissionregistrationv1.FailurePolicyType{"ignore": admissionregistrationv1.Ignore, "fail": admissionregistrationv1.Fail} {
			gomega.Expect(speckit.MAPAndBinding(ctx, f, suffix, mutatingpolicy.MutatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(fp), Variables: variables,
				Mutations: []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{data: {"heavy": string(` + strings.Join(refs, " && ") + `)}}`)},
			}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		}
		gomega.Expect(speckit.AwaitMAPs(ctx, f, false)).To(gomega.Succeed())
		read := []string{speckit.MAPChecks, speckit.MAPCheckDuration}
		before := speckit.MustScrapeMetrics(ctx, f, read...)
		for i := range 2 {
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ItemsConfigMap(f, fmt.Sprintf("mid-%d", i), speckit.MidItems, "good"), metav1.CreateOptions{})
			gomega.Expect(err).To(gomega.MatchError(gomega.ContainSubstring(speckit.BudgetExceeded)),
				"the policy under failurePolicy Fail denies the request with the budget error")
		}
		after := speckit.MustScrapeMetrics(ctx, f, read...)
		for _, suffix := range []string{"ignore", "fail"} {
			name := speckit.PolicyName(f, suffix)
			speckit.ExpectMoved(before, after, speckit.MAPChecks, speckit.Lbl("policy", name),
				speckit.Deltas{}.Add(2, speckit.Lbl("policy", name, "policy_binding", name, "error_type", "out_of_budget")),
				"one check per request whose mutation ran out of the policy's budget")
		}
	})
})
