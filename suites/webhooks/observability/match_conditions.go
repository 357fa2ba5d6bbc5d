package observability

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
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
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

		read := []string{speckit.ConditionExclusions, speckit.ConditionErrors, speckit.ConditionSeconds, speckit.WebhookRequests}
		before := speckit.MustScrapeMetrics(ctx, f, read...)
		cms := f.Client.CoreV1().ConfigMaps(f.Namespace)
		_, err = cms.Create(ctx, routedConfigMap(f, "call", "filter", map[string]string{"verdict": "call"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		matched := speckit.MustScrapeMetrics(ctx, f, speckit.ConditionSeconds)
		skipped, err := cms.Create(ctx, routedConfigMap(f, "skip", "filter", map[string]string{"verdict": "skip"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		skipped.Data["again"] = "still skip"
		_, err = cms.Update(ctx, skipped, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = cms.Create(ctx, routedConfigMap(f, "error-ignore", "error-ignore", map[string]string{"verdict": "x"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a condition that fails to evaluate under failurePolicy Ignore skips the webhook")
		_, err = cms.Create(ctx, routedConfigMap(f, "error-fail", "error-fail", map[string]string{"verdict": "x"}), metav1.CreateOptions{})
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "a condition that fails to evaluate under failurePolicy Fail rejects the request (403), got %v", err)
		after := speckit.MustScrapeMetrics(ctx, f, read...)

		expectMovedBy(before, after, speckit.ConditionExclusions, speckit.Lbl("name", vFiltered), speckit.CountOf, documentedConditionType, speckit.Deltas{}.
			Add(1, speckit.Lbl("name", vFiltered, "kind", "webhook", "type", "validate", "operation", "CREATE")).
			Add(1, speckit.Lbl("name", vFiltered, "kind", "webhook", "type", "validate", "operation", "UPDATE")),
			"the condition was false for the create and the update of skip")
		speckit.ExpectMoved(before, after, speckit.ConditionExclusions, speckit.Lbl("name", mFiltered), speckit.Deltas{}.
			Add(1, speckit.Lbl("name", mFiltered, "kind", "webhook", "type", "admit", "operation", "CREATE")).
			Add(1, speckit.Lbl("name", mFiltered, "kind", "webhook", "type", "admit", "operation", "UPDATE")),
			"the condition was false for the create and the update of skip")
		expectMovedBy(before, after, speckit.ConditionExclusions, speckit.Lbl("name", errIgnore), speckit.CountOf, documentedConditionType, speckit.Deltas{}.
			Add(1, speckit.Lbl("name", errIgnore, "kind", "webhook", "type", "validate", "operation", "CREATE")),
			"under failurePolicy Ignore a condition that fails to evaluate excludes the request")
		speckit.ExpectMoved(before, after, speckit.ConditionExclusions, speckit.Lbl("name", errFail), speckit.Deltas{},
			"under failurePolicy Fail a condition that fails to evaluate rejects the request: no exclusion")

		for _, h := range []string{errIgnore, errFail} {
			expectMovedBy(before, after, speckit.ConditionErrors, speckit.Lbl("name", h), speckit.CountOf, documentedConditionType,
				speckit.Deltas{}.Add(1, speckit.Lbl("name", h, "kind", "webhook", "type", "validate", "operation", "CREATE")),
				"one evaluation error per request whose condition failed to evaluate")
			expectMovedBy(before, after, speckit.ConditionSeconds, speckit.Lbl("name", h), speckit.CountOf, documentedConditionType,
				speckit.Deltas{}.Add(1, speckit.Lbl("name", h, "kind", "webhook", "type", "validate", "operation", "CREATE")),
				"one evaluation time per evaluation that failed")
		}
		for _, h := range []string{vFiltered, mFiltered} {
			speckit.ExpectMoved(before, after, speckit.ConditionErrors, speckit.Lbl("name", h), speckit.Deltas{}, "a condition that evaluates is no evaluation error")
		}
		// The evaluation that matched (call) may or may not be timed: the
		// pinned apiserver observes the time only of evaluations that
		// exclude the request or fail (matchconditions/matcher.go returns
		// a match before observing it), the metric's help says every
		// evaluation. The others are asserted exactly.
		for _, h := range []struct{ name, typ string }{{vFiltered, "validate"}, {mFiltered, "admit"}} {
			timedMatch := matched.Moved(before, speckit.ConditionSeconds, speckit.Lbl("name", h.name), speckit.CountOf, documentedConditionType)
			gomega.Expect(timedMatch[speckit.LabelKey(speckit.Lbl("name", h.name, "kind", "webhook", "type", h.typ, "operation", "CREATE"))]).To(gomega.BeNumerically("<=", 1),
				"%s{name=%s}: the matching evaluation is at most one sample", speckit.ConditionSeconds, h.name)
			expectMovedBy(matched, after, speckit.ConditionSeconds, speckit.Lbl("name", h.name), speckit.CountOf, documentedConditionType, speckit.Deltas{}.
				Add(1, speckit.Lbl("name", h.name, "kind", "webhook", "type", h.typ, "operation", "CREATE")).
				Add(1, speckit.Lbl("name", h.name, "kind", "webhook", "type", h.typ, "operation", "UPDATE")),
				"one evaluation time per evaluation that excluded the request: the create and the update of skip")
		}

		speckit.ExpectMoved(before, after, speckit.WebhookRequests, speckit.Lbl("name", vFiltered),
			speckit.Deltas{}.Add(1, speckit.Lbl("name", vFiltered, "type", "validating", "operation", "CREATE", "code", "200", "rejected", "false")),
			"the filtered hook is called for call alone")
		speckit.ExpectMoved(before, after, speckit.WebhookRequests, speckit.Lbl("name", mFiltered),
			speckit.Deltas{}.Add(1, speckit.Lbl("name", mFiltered, "type", "admit", "operation", "CREATE", "code", "200", "rejected", "false")),
			"the filtered hook is called for call alone")
		for _, h := range []string{errIgnore, errFail} {
			speckit.ExpectMoved(before, after, speckit.WebhookRequests, speckit.Lbl("name", h), speckit.Deltas{}, "a hook whose condition failed to evaluate is not called")
		}
	})

	ginkgo.It("a ValidatingAdmissionPolicy's condition that fails to evaluate: an evaluation error of kind policy", func(ctx ginkgo.SpecContext) {
		s := admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:   ptr.To(admissionregistrationv1.Ignore),
			MatchConditions: []admissionregistrationv1.MatchCondition{conditionFails},
			Validations:     []admissionregistrationv1.Validation{{Expression: "false", Message: "never reached"}},
		}
		gomega.Expect(speckit.VAPWith(ctx, f, "conditions", s, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())
		name := speckit.PolicyName(f, "conditions")
		read := []string{speckit.ConditionErrors, speckit.ConditionSeconds}
		before := speckit.MustScrapeMetrics(ctx, f, read...)
		for _, n := range []string{"one", "two"} {
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Verdict(f, n, "x"), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "under failurePolicy Ignore a condition that fails to evaluate skips the policy")
		}
		after := speckit.MustScrapeMetrics(ctx, f, read...)
		speckit.ExpectMoved(before, after, speckit.ConditionErrors, speckit.Lbl("name", name),
			speckit.Deltas{}.Add(2, speckit.Lbl("name", name, "kind", "policy", "type", "validate", "operation", "CREATE")),
			"one evaluation error per request")
		speckit.ExpectMoved(before, after, speckit.ConditionSeconds, speckit.Lbl("name", name),
			speckit.Deltas{}.Add(2, speckit.Lbl("name", name, "kind", "policy", "type", "validate", "operation", "CREATE")),
			"one evaluation time per evaluation")
	})
})
