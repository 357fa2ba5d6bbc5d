package policycel

import (
	"fmt"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var matchConditionsErrors = spec.Spec{
	ShortName: "MatchConditionsErrors",
	Suite:     "webhooks",
	Description: "A webhook matchCondition (of a validating webhook, and of a mutating one, which evaluates them on its own " +
		"path) that errors at run time, exceeds the per-expression cost limit, or whose " +
		"conditions together exceed the 2,500,000 matchConditions cost budget rejects the request with HTTP 403 naming " +
		"the error under failurePolicy Fail, and skips the webhook under Ignore; a false condition skips the webhook " +
		"even when another errors; the same conditions on a small object call the webhook.",
	Features: []features.Name{features.ValidatingWebhook, features.MutatingWebhook, features.WebhookMatchConditions},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 ValidatingWebhook.matchConditions, MutatingWebhook.matchConditions, failurePolicy; " +
		"k8s.io/apiserver v0.37.2 pkg/apis/cel/config.go (PerCallLimit, RuntimeCELCostBudgetMatchConditions)",
}

var policyCELCostBudget = spec.Spec{
	ShortName: "PolicyCELCostBudget",
	Suite:     "webhooks",
	Description: "A ValidatingAdmissionPolicy expression over the 1,000,000 per-expression cost limit errors (Fail denies " +
		"naming it, Ignore skips it alone); validations each under that limit but together over a binding's " +
		"10,000,000 budget fail the whole binding (Fail denies with the budget error, Ignore skips the binding, its " +
		"failed validations included), each binding having its own budget, its auditAnnotations evaluated with what the " +
		"validations left of it (over it, Fail denies with the budget error, Ignore admits); a policy's matchConditions that error, " +
		"exceed the per-expression limit or together exceed their 2,500,000 budget deny under Fail and skip the " +
		"policy under Ignore; the same expressions on a small object stay within every limit.",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.failurePolicy; " +
		"k8s.io/apiserver v0.37.2 pkg/apis/cel/config.go (PerCallLimit, RuntimeCELCostBudget, RuntimeCELCostBudgetMatchConditions)",
}

// expectConditionRejection asserts err is the 403 a webhook's failing
// matchConditions give under failurePolicy Fail.
func expectConditionRejection(err error, name, message string) {
	gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "failurePolicy Fail must reject the request (%s)", message)
	speckit.ExpectPolicyDenial(err, http.StatusForbidden, metav1.StatusReasonForbidden, fmt.Sprintf("configmaps %q is forbidden: %s", name, message))
}

func heavyConditions(n int) []admissionregistrationv1.MatchCondition {
	conditions := make([]admissionregistrationv1.MatchCondition, n)
	for i := range conditions {
		conditions[i] = admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("heavy-%d", i), Expression: speckit.Heavy}
	}
	return conditions
}

var _ = harness.Describe(matchConditionsErrors, func(f *harness.Framework) {
	// register registers one validating webhook with conditions and
	// failurePolicy fp, returning it.
	register := func(ctx ginkgo.SpecContext, fp admissionregistrationv1.FailurePolicyType, conditions ...admissionregistrationv1.MatchCondition) harness.RegisteredHook {
		reg, err := f.RegisterValidating(ctx, "conditions", harness.Hook{Name: "conditional", Behaviour: speckit.Allow(), FailurePolicy: fp, MatchConditions: conditions})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		return reg.Hooks["conditional"]
	}
	create := func(ctx ginkgo.SpecContext, cm *corev1.ConfigMap) error {
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		return err
	}
	expectCalls := func(hook harness.RegisteredHook, name string, calls int, why string) {
		gomega.ExpectWithOffset(1, speckit.CallsTo(f, hook, f.Namespace, name)).To(gomega.HaveLen(calls), "the webhook's calls for %s: %s", name, why)
	}

	ginkgo.It("a condition that errors at run time: failurePolicy Fail rejects with 403 naming the error, without calling the webhook", func(ctx ginkgo.SpecContext) {
		hook := register(ctx, admissionregistrationv1.Fail, admissionregistrationv1.MatchCondition{Name: "errors", Expression: speckit.ErroringCondition})
		expectConditionRejection(create(ctx, speckit.ConfigMap(f, "errors", map[string]string{"present": "yes"})), "errors",
			speckit.ExpressionError(speckit.ErroringCondition, "no such key: absent"))
		expectCalls(hook, "errors", 0, "a condition that errors under Fail rejects before the call")
		gomega.Expect(create(ctx, speckit.ConfigMap(f, "true", map[string]string{"absent": "x"}))).To(gomega.Succeed())
		expectCalls(hook, "true", 1, "the condition is true for this object")
	})

	ginkgo.It("a condition that errors at run time: failurePolicy Ignore admits without calling the webhook", func(ctx ginkgo.SpecContext) {
		hook := register(ctx, admissionregistrationv1.Ignore, admissionregistrationv1.MatchCondition{Name: "errors", Expression: speckit.ErroringCondition})
		gomega.Expect(create(ctx, speckit.ConfigMap(f, "errors", map[string]string{"present": "yes"}))).To(gomega.Succeed(),
			"under failurePolicy Ignore a condition that errors skips the webhook")
		expectCalls(hook, "errors", 0, "a condition that errors under Ignore skips the webhook")
		gomega.Expect(create(ctx, speckit.ConfigMap(f, "true", map[string]string{"absent": "x"}))).To(gomega.Succeed())
		expectCalls(hook, "true", 1, "the condition is true for this object")
	})

	// The mutating dispatcher evaluates matchConditions on its own path.
	registerMutating := func(ctx ginkgo.SpecContext, fp admissionregistrationv1.FailurePolicyType, conditions ...admissionregistrationv1.MatchCondition) harness.RegisteredHook {
		reg, err := f.RegisterMutating(ctx, "conditions", harness.Hook{Name: "conditional", FailurePolicy: fp, MatchConditions: conditions,
			Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey}})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		return reg.Hooks["conditional"]
	}
	ginkgo.It("a mutating webhook's condition that errors at run time: failurePolicy Fail rejects with 403 naming the error, without calling the webhook", func(ctx ginkgo.SpecContext) {
		hook := registerMutating(ctx, admissionregistrationv1.Fail, admissionregistrationv1.MatchCondition{Name: "errors", Expression: speckit.ErroringCondition})
		expectConditionRejection(create(ctx, speckit.ConfigMap(f, "errors", map[string]string{"present": "yes"})), "errors",
			speckit.ExpressionError(speckit.ErroringCondition, "no such key: absent"))
		expectCalls(hook, "errors", 0, "a condition that errors under Fail rejects before the call")
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "true", map[string]string{"absent": "x"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(created.Data).To(gomega.HaveKey("mutated"), "the condition is true for this object: the webhook mutates it")
		expectCalls(hook, "true", 1, "the condition is true for this object")
	})

	ginkgo.It("a mutating webhook's condition that errors at run time: failurePolicy Ignore admits unmutated without calling the webhook", func(ctx ginkgo.SpecContext) {
		hook := registerMutating(ctx, admissionregistrationv1.Ignore, admissionregistrationv1.MatchCondition{Name: "errors", Expression: speckit.ErroringCondition})
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ConfigMap(f, "errors", map[string]string{"present": "yes"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "under failurePolicy Ignore a condition that errors skips the webhook")
		gomega.Expect(created.Data).NotTo(gomega.HaveKey("mutated"))
		expectCalls(hook, "errors", 0, "a condition that errors under Ignore skips the webhook")
	})

	ginkgo.It("a false condition skips the webhook even when another condition errors, under failurePolicy Fail", func(ctx ginkgo.SpecContext) {
		hook := register(ctx, admissionregistrationv1.Fail,
			admissionregistrationv1.MatchCondition{Name: "errors", Expression: speckit.ErroringCondition},
			admissionregistrationv1.MatchCondition{Name: "not-skipped", Expression: "object.metadata.name != 'skipped'"})
		gomega.Expect(create(ctx, speckit.ConfigMap(f, "skipped", map[string]string{"present": "yes"}))).To(gomega.Succeed(),
			"a false condition skips the webhook, whatever the other conditions' errors")
		expectCalls(hook, "skipped", 0, "a false condition skips the webhook")
		expectConditionRejection(create(ctx, speckit.ConfigMap(f, "checked", map[string]string{"present": "yes"})), "checked",
			speckit.ExpressionError(speckit.ErroringCondition, "no such key: absent"))
		expectCalls(hook, "checked", 0, "an error with only true conditions rejects under Fail before the call")
	})

	for _, fp := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		ginkgo.It(fmt.Sprintf("a condition over the per-expression cost limit: failurePolicy %s", fp), func(ctx ginkgo.SpecContext) {
			hook := register(ctx, fp, admissionregistrationv1.MatchCondition{Name: "heavy", Expression: speckit.Heavy})
			err := create(ctx, speckit.ItemsConfigMap(f, "big", speckit.BigItems, "good"))
			if fp == admissionregistrationv1.Fail {
				expectConditionRejection(err, "big", speckit.ExpressionError(speckit.Heavy, speckit.CostLimitExceeded))
			} else {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "under failurePolicy Ignore a condition over the cost limit skips the webhook")
			}
			expectCalls(hook, "big", 0, "a condition over the cost limit is an error: the webhook is not called")
			gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "small", speckit.SmallItems, "good"))).To(gomega.Succeed(), "the same condition on a small object is within the limit")
			expectCalls(hook, "small", 1, "the condition is true, and cheap, for a small object")
		})

		ginkgo.It(fmt.Sprintf("conditions each under the per-expression limit, together over the 2,500,000 matchConditions budget: failurePolicy %s", fp), func(ctx ginkgo.SpecContext) {
			// Each hook is checked on its own objects: a rejection by one
			// would hide the other.
			selecting := func(hook string) *metav1.LabelSelector {
				return &metav1.LabelSelector{MatchLabels: map[string]string{"hook": hook}}
			}
			reg, err := f.RegisterValidating(ctx, "budget",
				harness.Hook{Name: "four", Behaviour: speckit.Allow(), FailurePolicy: fp, MatchConditions: heavyConditions(4), ObjectSelector: selecting("four")},
				harness.Hook{Name: "three", Behaviour: speckit.Allow(), FailurePolicy: fp, MatchConditions: heavyConditions(3), ObjectSelector: selecting("three")},
			)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			four, three := reg.Hooks["four"], reg.Hooks["three"]
			labelled := func(name string, n int, hook string) *corev1.ConfigMap {
				cm := speckit.ItemsConfigMap(f, name, n, "good")
				cm.Labels = map[string]string{"hook": hook}
				return cm
			}
			err = create(ctx, labelled("mid-four", speckit.MidItems, "four"))
			if fp == admissionregistrationv1.Fail {
				expectConditionRejection(err, "mid-four", speckit.BudgetExceeded)
			} else {
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "under failurePolicy Ignore conditions over the budget skip the webhook")
			}
			expectCalls(four, "mid-four", 0, "four conditions of 797,582 exceed the 2,500,000 budget")
			gomega.Expect(create(ctx, labelled("small-four", speckit.SmallItems, "four"))).To(gomega.Succeed(), "the same conditions on a small object are within the budget")
			expectCalls(four, "small-four", 1, "four cheap conditions are within the budget")
			gomega.Expect(create(ctx, labelled("mid-three", speckit.MidItems, "three"))).To(gomega.Succeed(), "three conditions of 797,582 are within the budget")
			expectCalls(three, "mid-three", 1, "three conditions of 797,582 are within the budget, and true")
		})
	}
})

var _ = harness.Describe(policyCELCostBudget, func(f *harness.Framework) {
	create := func(ctx ginkgo.SpecContext, cm *corev1.ConfigMap) error {
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		return err
	}
	heavyValidations := func(n int) []admissionregistrationv1.Validation {
		validations := []admissionregistrationv1.Validation{{Expression: speckit.RejectsBad, Message: "verdict is bad"}}
		for i := range n {
			validations = append(validations, admissionregistrationv1.Validation{Expression: speckit.Heavy, Message: fmt.Sprintf("heavy %d is false", i)})
		}
		return validations
	}
	policy := func(fp admissionregistrationv1.FailurePolicyType, validations []admissionregistrationv1.Validation) admissionregistrationv1.ValidatingAdmissionPolicySpec {
		return admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(fp), Validations: validations}
	}
	deny := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()}

	ginkgo.It("a validation over the per-expression cost limit: failurePolicy Fail denies naming the cost error", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "limit", policy(admissionregistrationv1.Fail, heavyValidations(1)), deny)).To(gomega.Succeed())
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "big", speckit.BigItems, "good")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "limit", speckit.ExpressionError(speckit.Heavy, speckit.CostLimitExceeded)))
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "small", speckit.SmallItems, "good"))).To(gomega.Succeed(), "the same validation on a small object is within the limit and true")
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "mid", speckit.MidItems, "good"))).To(gomega.Succeed(), "797,582 is within the limit")
	})

	ginkgo.It("a validation over the per-expression cost limit: failurePolicy Ignore skips it alone, the other validations apply", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "limit", policy(admissionregistrationv1.Ignore, heavyValidations(1)), deny)).To(gomega.Succeed())
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "big", speckit.BigItems, "good"))).To(gomega.Succeed(), "under Ignore the validation over the limit is skipped")
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "big-bad", speckit.BigItems, "bad")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "limit", "verdict is bad"))
	})

	ginkgo.It("validations each under the per-expression limit, together over the binding's 10,000,000 budget: failurePolicy Fail denies with the budget error", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "budget", policy(admissionregistrationv1.Fail, heavyValidations(13)), deny)).To(gomega.Succeed())
		// The first validation fails for verdict bad, yet the budget
		// error is the denial: the binding's evaluation fails as a whole.
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "mid-bad", speckit.MidItems, "bad")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "budget", speckit.BudgetExceeded))
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "small-bad", speckit.SmallItems, "bad")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "budget", "verdict is bad"))
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "small", speckit.SmallItems, "good"))).To(gomega.Succeed(), "the same validations on a small object are within the budget and true")
	})

	ginkgo.It("validations together over the binding's budget: failurePolicy Ignore skips the whole binding, its failed validations included", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "budget", policy(admissionregistrationv1.Ignore, heavyValidations(13)), deny)).To(gomega.Succeed())
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "mid-bad", speckit.MidItems, "bad"))).To(gomega.Succeed(),
			"under Ignore a binding over its budget is skipped, the failing first validation with it")
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "small-bad", speckit.SmallItems, "bad")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "budget", "verdict is bad"))
	})

	ginkgo.It("twelve of the same validations fit a binding's budget, and each binding has its own", func(ctx ginkgo.SpecContext) {
		warn := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}}
		gomega.Expect(speckit.VAPAndBinding(ctx, f, "twelve", policy(admissionregistrationv1.Fail, heavyValidations(12)), warn)).To(gomega.Succeed())
		// Two bindings of a policy of seven: 5,583,074 each, 11,166,148 together.
		gomega.Expect(speckit.VAPAndBinding(ctx, f, "seven", policy(admissionregistrationv1.Fail, heavyValidations(7)), warn)).To(gomega.Succeed())
		second := speckit.PolicyName(f, "seven-second")
		gomega.Expect(speckit.BindVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: second},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, "seven"), ValidationActions: warn.ValidationActions}})).To(gomega.Succeed())
		gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())
		client, w := speckit.WarningClient(f)
		_, err := client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.ItemsConfigMap(f, "mid-bad", speckit.MidItems, "bad"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "Warn bindings admit")
		warning := func(policy, binding string) string {
			return fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': verdict is bad", policy, binding)
		}
		gomega.Expect(w.Take()).To(gomega.ConsistOf(
			warning(speckit.PolicyName(f, "twelve"), speckit.PolicyName(f, "twelve")),
			warning(speckit.PolicyName(f, "seven"), speckit.PolicyName(f, "seven")),
			warning(speckit.PolicyName(f, "seven"), second),
		), "every binding evaluates all its validations within its own budget: each warns that the verdict is bad, none that it ran out of budget")
	})

	// Audit annotations are evaluated after the validations, with what is
	// left of the binding's budget: thirteen heavy ones exceed it.
	heavyAnnotations := func(fp admissionregistrationv1.FailurePolicyType) admissionregistrationv1.ValidatingAdmissionPolicySpec {
		p := policy(fp, []admissionregistrationv1.Validation{{Expression: "true", Message: "never fails"}})
		for i := range 13 {
			p.AuditAnnotations = append(p.AuditAnnotations, admissionregistrationv1.AuditAnnotation{
				Key: fmt.Sprintf("heavy-%d", i), ValueExpression: "(" + speckit.Heavy + ") ? 'all in' : 'some out'"})
		}
		return p
	}
	ginkgo.It("auditAnnotations together over the binding's budget: failurePolicy Fail denies with the budget error", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "annotations", heavyAnnotations(admissionregistrationv1.Fail), deny)).To(gomega.Succeed())
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "mid", speckit.MidItems, "good")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "annotations", speckit.BudgetExceeded))
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "small", speckit.SmallItems, "good"))).To(gomega.Succeed(), "the same annotations on a small object are within the budget")
	})
	ginkgo.It("auditAnnotations together over the binding's budget: failurePolicy Ignore admits", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "annotations", heavyAnnotations(admissionregistrationv1.Ignore), deny)).To(gomega.Succeed())
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "mid", speckit.MidItems, "good"))).To(gomega.Succeed(), "under Ignore a binding whose annotations run out of budget is skipped")
	})

	conditionPolicy := func(fp admissionregistrationv1.FailurePolicyType, conditions ...admissionregistrationv1.MatchCondition) admissionregistrationv1.ValidatingAdmissionPolicySpec {
		return admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(fp), MatchConditions: conditions,
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: "the policy applies"}}}
	}
	for _, fp := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
		// skippedOrDenied asserts what fp does with a matchConditions error.
		skippedOrDenied := func(err error, suffix, message string) {
			if fp == admissionregistrationv1.Fail {
				speckit.ExpectPolicyDenial(err, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, suffix, message))
			} else {
				gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred(), "under failurePolicy Ignore a matchConditions error skips the policy (%s)", message)
			}
		}

		ginkgo.It(fmt.Sprintf("a policy matchCondition that errors at run time: failurePolicy %s", fp), func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPWith(ctx, f, "errors", conditionPolicy(fp, admissionregistrationv1.MatchCondition{Name: "errors", Expression: speckit.ErroringCondition}), deny)).To(gomega.Succeed())
			skippedOrDenied(create(ctx, speckit.ConfigMap(f, "errors", map[string]string{"present": "yes"})), "errors", speckit.ExpressionError(speckit.ErroringCondition, "no such key: absent"))
			speckit.ExpectPolicyDenial(create(ctx, speckit.ConfigMap(f, "true", map[string]string{"absent": "x"})), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				speckit.VAPDenied(f, "errors", "the policy applies"))
		})

		ginkgo.It(fmt.Sprintf("a policy matchCondition over the per-expression cost limit: failurePolicy %s", fp), func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPWith(ctx, f, "limit", conditionPolicy(fp, admissionregistrationv1.MatchCondition{Name: "heavy", Expression: speckit.Heavy}), deny)).To(gomega.Succeed())
			skippedOrDenied(create(ctx, speckit.ItemsConfigMap(f, "big", speckit.BigItems, "good")), "limit", speckit.ExpressionError(speckit.Heavy, speckit.CostLimitExceeded))
			speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "small", speckit.SmallItems, "good")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				speckit.VAPDenied(f, "limit", "the policy applies"))
		})

		ginkgo.It(fmt.Sprintf("policy matchConditions together over their 2,500,000 budget (not a binding's 10,000,000): failurePolicy %s", fp), func(ctx ginkgo.SpecContext) {
			gomega.Expect(speckit.VAPAndBinding(ctx, f, "four", conditionPolicy(fp, heavyConditions(4)...), admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				ValidationActions: speckit.DenyAction(), MatchResources: &admissionregistrationv1.MatchResources{
					ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"conditions": "four"}}}})).To(gomega.Succeed())
			gomega.Expect(speckit.VAPAndBinding(ctx, f, "three", conditionPolicy(fp, heavyConditions(3)...), admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				ValidationActions: speckit.DenyAction(), MatchResources: &admissionregistrationv1.MatchResources{
					ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"conditions": "three"}}}})).To(gomega.Succeed())
			gomega.Expect(speckit.AwaitVAPs(ctx, f)).To(gomega.Succeed())
			labelled := func(name string, n int, conditions string) *corev1.ConfigMap {
				cm := speckit.ItemsConfigMap(f, name, n, "good")
				cm.Labels = map[string]string{"conditions": conditions}
				return cm
			}
			skippedOrDenied(create(ctx, labelled("mid-four", speckit.MidItems, "four")), "four", speckit.BudgetExceeded)
			speckit.ExpectPolicyDenial(create(ctx, labelled("small-four", speckit.SmallItems, "four")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				speckit.VAPDenied(f, "four", "the policy applies"))
			speckit.ExpectPolicyDenial(create(ctx, labelled("mid-three", speckit.MidItems, "three")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				speckit.VAPDenied(f, "three", "the policy applies"))
		})
	}
})
