package policycel

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var policyMessageExpressionLimits = spec.Spec{
	ShortName: "PolicyMessageExpressionLimits",
	Suite:     "webhooks",
	Description: "A failing ValidatingAdmissionPolicy validation whose messageExpression evaluates to more than 5 KiB is " +
		"denied with its message instead; a messageExpression that runs out of the binding's cost budget left by the " +
		"validations is a failure of the binding under failurePolicy (Fail denies with \"failed messageExpression: ...\", " +
		"Ignore admits).",
	Features: []features.Name{features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 Validation.messageExpression, ValidatingAdmissionPolicySpec.failurePolicy; " +
		"KEP-3488; k8s.io/apiserver v0.37.2 pkg/apis/cel/config.go (MaxEvaluatedMessageExpressionSizeBytes, RuntimeCELCostBudget), " +
		"pkg/admission/plugin/policy/validating/validator.go Validate",
}

// messageLimit is the longest messageExpression result used as a message.
const messageLimit = 5 * 1024

var _ = harness.Describe(policyMessageExpressionLimits, func(f *harness.Framework) {
	create := func(ctx ginkgo.SpecContext, cm *corev1.ConfigMap) error {
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		return err
	}

	ginkgo.It("a messageExpression result over 5 KiB falls back to message; one of 5 KiB is the message", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "long", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			Validations: []admissionregistrationv1.Validation{{Expression: speckit.RejectsBad, Message: "the static message",
				MessageExpression: "string(object.data.text)"}},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		long := strings.Repeat("x", 6000)
		speckit.ExpectPolicyDenial(create(ctx, speckit.ConfigMap(f, "long", map[string]string{"verdict": "bad", "text": long})),
			http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "long", "the static message"))
		limit := strings.Repeat("y", messageLimit)
		speckit.ExpectPolicyDenial(create(ctx, speckit.ConfigMap(f, "limit", map[string]string{"verdict": "bad", "text": limit})),
			http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "long", limit))
	})

	// Twelve heavy validations spend 9,570,984 of the binding's 10,000,000
	// on 1000 items (cel_errors_and_budget.go): a messageExpression as
	// heavy does not fit in what is left; on 10 items everything does.
	withHeavyMessage := func(fp admissionregistrationv1.FailurePolicyType) admissionregistrationv1.ValidatingAdmissionPolicySpec {
		validations := []admissionregistrationv1.Validation{{Expression: speckit.RejectsBad, Message: "verdict is bad",
			MessageExpression: "(" + speckit.Heavy + ") ? 'verdict is bad, items checked' : 'verdict is bad, items not checked'"}}
		for i := range 12 {
			validations = append(validations, admissionregistrationv1.Validation{Expression: speckit.Heavy, Message: fmt.Sprintf("heavy %d is false", i)})
		}
		return admissionregistrationv1.ValidatingAdmissionPolicySpec{FailurePolicy: ptr.To(fp), Validations: validations}
	}
	deny := admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()}

	ginkgo.It("a messageExpression over the budget the validations left: failurePolicy Fail denies with the budget error", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "budget", withHeavyMessage(admissionregistrationv1.Fail), deny)).To(gomega.Succeed())
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "mid-bad", speckit.MidItems, "bad")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "budget", "failed messageExpression: "+speckit.BudgetExceeded))
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "mid-good", speckit.MidItems, "good")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "budget", "failed messageExpression: "+speckit.BudgetExceeded))
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "small-bad", speckit.SmallItems, "bad")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "budget", "verdict is bad, items checked"))
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "small-good", speckit.SmallItems, "good"))).To(gomega.Succeed(), "on a small object everything is within the budget")
	})

	ginkgo.It("a messageExpression over the budget the validations left: failurePolicy Ignore admits, the failed validation included", func(ctx ginkgo.SpecContext) {
		gomega.Expect(speckit.VAPWith(ctx, f, "budget", withHeavyMessage(admissionregistrationv1.Ignore), deny)).To(gomega.Succeed())
		gomega.Expect(create(ctx, speckit.ItemsConfigMap(f, "mid-bad", speckit.MidItems, "bad"))).To(gomega.Succeed(),
			"under Ignore the binding's evaluation that ran out of budget is skipped, its failed validation with it")
		speckit.ExpectPolicyDenial(create(ctx, speckit.ItemsConfigMap(f, "small-bad", speckit.SmallItems, "bad")), http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			speckit.VAPDenied(f, "budget", "verdict is bad, items checked"))
	})
})
