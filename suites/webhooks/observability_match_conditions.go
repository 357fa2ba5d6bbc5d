package webhooks

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var matchConditionMetrics = spec.Spec{
	ShortName: "MatchConditionMetrics",
	Suite:     "webhooks",
	Description: "A webhook whose matchConditions exclude a request counts it in apiserver_admission_match_condition_exclusions_total; " +
		"a condition that fails to evaluate counts in apiserver_admission_match_condition_evaluation_errors_total (webhooks and " +
		"ValidatingAdmissionPolicies); every evaluation that excludes or fails is one sample of apiserver_admission_match_condition_evaluation_seconds.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.WebhookMatchConditions,
		features.ValidatingAdmissionPolicy, features.APIServerMetrics},
	Profile: spec.Extended,
	Seed:    "admissionregistration.k8s.io/v1 {Mutating,Validating}Webhook.matchConditions; k8s.io/apiserver v0.37.2 pkg/admission/metrics (match condition metrics)",
}

// The match condition metrics' type label: the documented values are
// validate and admit; the pinned apiserver counts a validating webhook's
// evaluation errors and evaluation times as "validating" (its exclusions
// as "validate"): webhook/accessors.go passes "validating" to the matcher,
// generic/webhook.go the accessor's GetType(), "validate". The specs accept
// both for those two metrics (documentedConditionType) and assert the rest.
func documentedConditionType(labels map[string]string) map[string]string {
	if labels["type"] == "validating" {
		labels["type"] = "validate"
	}
	return labels
}

// conditionCalled is the condition the filtered hooks call for: true for
// verdict "call", false for any other verdict.
var conditionCalled = admissionregistrationv1.MatchCondition{Name: "called", Expression: "object.data['verdict'] == 'call'"}

// conditionFails reads a key the objects do not have: a runtime error.
var conditionFails = admissionregistrationv1.MatchCondition{Name: "fails", Expression: "object.data['absent'] == 'x'"}

var _ = harness.Describe(matchConditionMetrics, func(f *harness.Framework) {
	ginkgo.It("webhooks: exclusions, evaluation errors under Ignore and Fail, one evaluation time per evaluation that excludes or fails", func(ctx ginkgo.SpecContext) {
		m, err := f.RegisterMutating(ctx, "conditions",
			harness.Hook{Name: "m-filtered", ObjectSelector: routed("filter"), MatchConditions: []admissionregistrationv1.MatchCondition{conditionCalled}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		v, err := f.RegisterValidating(ctx, "conditions",
			harness.Hook{Name: "v-filtered", ObjectSelector: routed("filter"), MatchConditions: []admissionregistrationv1.MatchCondition{conditionCalled}},
			harness.Hook{Name: "error-ignore", ObjectSelector: routed("error-ignore"), FailurePolicy: admissionregistrationv1.Ignore,
				MatchConditions: []admissionregistrationv1.MatchCondition{conditionFails}},
			harness.Hook{Name: "error-fail", ObjectSelector: routed("error-fail"),
				MatchConditions: []admissionregistrationv1.MatchCondition{conditionFails}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		mFiltered, vFiltered := m.Hooks["m-filtered"].FullName, v.Hooks["v-filtered"].FullName
		errIgnore, errFail := v.Hooks["error-ignore"].FullName, v.Hooks["error-fail"].FullName

		read := []string{conditionExclusions, conditionErrors, conditionSeconds, webhookRequests}
		before := mustScrapeMetrics(ctx, f, read...)
		cms := f.Client.CoreV1().ConfigMaps(f.Namespace)
		_, err = cms.Create(ctx, routedConfigMap(f, "call", "filter", map[string]string{"verdict": "call"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		matched := mustScrapeMetrics(ctx, f, conditionSeconds)
		skipped, err := cms.Create(ctx, routedConfigMap(f, "skip", "filter", map[string]string{"verdict": "skip"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		skipped.Data["again"] = "still skip"
		_, err = cms.Update(ctx, skipped, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = cms.Create(ctx, routedConfigMap(f, "error-ignore", "error-ignore", map[string]string{"verdict": "x"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a condition that fails to evaluate under failurePolicy Ignore skips the webhook")
		_, err = cms.Create(ctx, routedConfigMap(f, "error-fail", "error-fail", map[string]string{"verdict": "x"}), metav1.CreateOptions{})
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "a condition that fails to evaluate under failurePolicy Fail rejects the request (403), got %v", err)
		after := mustScrapeMetrics(ctx, f, read...)

		expectMovedBy(before, after, conditionExclusions, lbl("name", vFiltered), countOf, documentedConditionType, deltas{}.
			add(1, lbl("name", vFiltered, "kind", "webhook", "type", "validate", "operation", "CREATE")).
			add(1, lbl("name", vFiltered, "kind", "webhook", "type", "validate", "operation", "UPDATE")),
			"the condition was false for the create and the update of skip")
		expectMoved(before, after, conditionExclusions, lbl("name", mFiltered), deltas{}.
			add(1, lbl("name", mFiltered, "kind", "webhook", "type", "admit", "operation", "CREATE")).
			add(1, lbl("name", mFiltered, "kind", "webhook", "type", "admit", "operation", "UPDATE")),
			"the condition was false for the create and the update of skip")
		expectMovedBy(before, after, conditionExclusions, lbl("name", errIgnore), countOf, documentedConditionType, deltas{}.
			add(1, lbl("name", errIgnore, "kind", "webhook", "type", "validate", "operation", "CREATE")),
			"under failurePolicy Ignore a condition that fails to evaluate excludes the request")
		expectMoved(before, after, conditionExclusions, lbl("name", errFail), deltas{},
			"under failurePolicy Fail a condition that fails to evaluate rejects the request: no exclusion")

		for _, h := range []string{errIgnore, errFail} {
			expectMovedBy(before, after, conditionErrors, lbl("name", h), countOf, documentedConditionType,
				deltas{}.add(1, lbl("name", h, "kind", "webhook", "type", "validate", "operation", "CREATE")),
				"one evaluation error per request whose condition failed to evaluate")
			expectMovedBy(before, after, conditionSeconds, lbl("name", h), countOf, documentedConditionType,
				deltas{}.add(1, lbl("name", h, "kind", "webhook", "type", "validate", "operation", "CREATE")),
				"one evaluation time per evaluation that failed")
		}
		for _, h := range []string{vFiltered, mFiltered} {
			expectMoved(before, after, conditionErrors, lbl("name", h), deltas{}, "a condition that evaluates is no evaluation error")
		}
		// The evaluation that matched (call) may or may not be timed: the
		// pinned apiserver observes the time only of evaluations that
		// exclude the request or fail (matchconditions/matcher.go returns
		// a match before observing it), the metric's help says every
		// evaluation. The others are asserted exactly.
		for _, h := range []struct{ name, typ string }{{vFiltered, "validate"}, {mFiltered, "admit"}} {
			timedMatch := matched.moved(before, conditionSeconds, lbl("name", h.name), countOf, documentedConditionType)
			gomega.Expect(timedMatch[labelKey(lbl("name", h.name, "kind", "webhook", "type", h.typ, "operation", "CREATE"))]).To(gomega.BeNumerically("<=", 1),
				"%s{name=%s}: the matching evaluation is at most one sample", conditionSeconds, h.name)
			expectMovedBy(matched, after, conditionSeconds, lbl("name", h.name), countOf, documentedConditionType, deltas{}.
				add(1, lbl("name", h.name, "kind", "webhook", "type", h.typ, "operation", "CREATE")).
				add(1, lbl("name", h.name, "kind", "webhook", "type", h.typ, "operation", "UPDATE")),
				"one evaluation time per evaluation that excluded the request: the create and the update of skip")
		}

		expectMoved(before, after, webhookRequests, lbl("name", vFiltered),
			deltas{}.add(1, lbl("name", vFiltered, "type", "validating", "operation", "CREATE", "code", "200", "rejected", "false")),
			"the filtered hook is called for call alone")
		expectMoved(before, after, webhookRequests, lbl("name", mFiltered),
			deltas{}.add(1, lbl("name", mFiltered, "type", "admit", "operation", "CREATE", "code", "200", "rejected", "false")),
			"the filtered hook is called for call alone")
		for _, h := range []string{errIgnore, errFail} {
			expectMoved(before, after, webhookRequests, lbl("name", h), deltas{}, "a hook whose condition failed to evaluate is not called")
		}
	})

	ginkgo.It("a ValidatingAdmissionPolicy's condition that fails to evaluate: an evaluation error of kind policy", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:   ptr.To(admissionregistrationv1.Ignore),
			MatchConditions: []admissionregistrationv1.MatchCondition{conditionFails},
			Validations:     []admissionregistrationv1.Validation{{Expression: "false", Message: "never reached"}},
		}
		gomega.Expect(vapWith(ctx, f, "conditions", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: denyAction()})).To(gomega.Succeed())
		name := policyName(f, "conditions")
		read := []string{conditionErrors, conditionSeconds}
		before := mustScrapeMetrics(ctx, f, read...)
		for _, n := range []string{"one", "two"} {
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, verdict(f, n, "x"), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "under failurePolicy Ignore a condition that fails to evaluate skips the policy")
		}
		after := mustScrapeMetrics(ctx, f, read...)
		expectMoved(before, after, conditionErrors, lbl("name", name),
			deltas{}.add(2, lbl("name", name, "kind", "policy", "type", "validate", "operation", "CREATE")),
			"one evaluation error per request")
		expectMoved(before, after, conditionSeconds, lbl("name", name),
			deltas{}.add(2, lbl("name", name, "kind", "policy", "type", "validate", "operation", "CREATE")),
			"one evaluation time per evaluation")
	})
})
