package observability

import (
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var admissionStepMetrics = spec.Spec{
	ShortName: "AdmissionStepMetrics",
	Suite:     "webhooks",
	Description: "Each admission phase of a request is one sample of apiserver_admission_step_admission_duration_seconds " +
		"(type admit or validate, operation, rejected) at least as long as the webhooks called in it, and one of " +
		"apiserver_admission_controller_admission_duration_seconds under the webhook plugin's name.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.APIServerMetrics},
	Profile:  spec.Extended,
	Seed:     "000 Requirements for extensible admission: object mutations must happen before object validations; k8s.io/apiserver v0.37.2 pkg/admission/metrics (step and plugin metrics)",
	Isolation: spec.Isolation{Serial: true, Quiet: []quiet.Kind{quiet.WebhookConfigurations},
		Reason: "the step and plugin histograms name no webhook: the case tells its requests apart by a duration no other request's admission takes, which other specs' slow webhooks would take too " +
			"(on the propagation plane, where every spec with webhooks holds their window, holding it is enough)"},
}

// The step and plugin histograms' largest finite bucket is 2.5 s (buckets
// 0.005, 0.025, 0.1, 0.5, 1, 2.5): a step that waited slowDelay for a
// webhook is counted above it, where no other request's admission lands
// while the case runs alone.
const (
	stepBucket = 2.5
	slowDelay  = 2600 * time.Millisecond
)

var _ = harness.Describe(admissionStepMetrics, func(f *harness.Framework) {
	ginkgo.It("admit and validate steps, admitted and rejected, create and update: one sample each above 2.5 s", func(ctx ginkgo.SpecContext) {
		slow := func(a fakewebhook.Action) fakewebhook.Behaviour {
			return fakewebhook.Behaviour{Action: a, Delay: slowDelay, Message: "slow and no"}
		}
		_, err := f.RegisterMutating(ctx, "steps",
			harness.Hook{Name: "slow-deny", ObjectSelector: routed("admit-deny"), Behaviour: slow(fakewebhook.Deny)})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = f.RegisterValidating(ctx, "steps",
			harness.Hook{Name: "slow-allow", ObjectSelector: routed("validate-allow"), Behaviour: slow(fakewebhook.Allow)},
			harness.Hook{Name: "slow-deny", ObjectSelector: routed("validate-deny"), Behaviour: slow(fakewebhook.Deny)})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		read := []string{speckit.StepDuration, speckit.PluginDuration, speckit.StepSummary}
		cms := f.Client.CoreV1().ConfigMaps(f.Namespace)
		before := speckit.MustScrapeMetrics(ctx, f, read...)
		// The three lines of requests are independent: they run at once,
		// each request still one slow step (the update after its create).
		var deniedByMutating, deniedByValidating, created, updated error
		var requests sync.WaitGroup
		requests.Go(func() {
			_, deniedByMutating = cms.Create(ctx, routedConfigMap(f, "admit-deny", "admit-deny", nil), metav1.CreateOptions{})
		})
		requests.Go(func() {
			_, deniedByValidating = cms.Create(ctx, routedConfigMap(f, "validate-deny", "validate-deny", nil), metav1.CreateOptions{})
		})
		requests.Go(func() {
			var allowed *corev1.ConfigMap
			if allowed, created = cms.Create(ctx, routedConfigMap(f, "validate-allow", "validate-allow", nil), metav1.CreateOptions{}); created != nil {
				return
			}
			allowed.Data = map[string]string{"updated": "yes"}
			_, updated = cms.Update(ctx, allowed, metav1.UpdateOptions{})
		})
		requests.Wait()
		gomega.Expect(deniedByMutating).To(gomega.HaveOccurred(), "the mutating hook denies")
		gomega.Expect(deniedByValidating).To(gomega.HaveOccurred(), "the validating hook denies")
		gomega.Expect(created).NotTo(gomega.HaveOccurred(), "create of the configmap the validating hook allows")
		gomega.Expect(updated).NotTo(gomega.HaveOccurred(), "update of the configmap the validating hook allows")
		after := speckit.MustScrapeMetrics(ctx, f, read...)

		steps := speckit.Deltas{}.
			Add(1, speckit.Lbl("type", "admit", "operation", "CREATE", "rejected", "true")).
			Add(1, speckit.Lbl("type", "validate", "operation", "CREATE", "rejected", "false")).
			Add(1, speckit.Lbl("type", "validate", "operation", "UPDATE", "rejected", "false")).
			Add(1, speckit.Lbl("type", "validate", "operation", "CREATE", "rejected", "true"))
		expectMovedBy(before, after, speckit.StepDuration, nil, samplesAbove(stepBucket), nil, steps,
			"each request's slow step, with its type, operation and whether it rejected the request, and nothing else above 2.5 s")
		plugins := speckit.Deltas{}.
			Add(1, speckit.Lbl("name", "MutatingAdmissionWebhook", "type", "admit", "operation", "CREATE", "rejected", "true")).
			Add(1, speckit.Lbl("name", "ValidatingAdmissionWebhook", "type", "validate", "operation", "CREATE", "rejected", "false")).
			Add(1, speckit.Lbl("name", "ValidatingAdmissionWebhook", "type", "validate", "operation", "UPDATE", "rejected", "false")).
			Add(1, speckit.Lbl("name", "ValidatingAdmissionWebhook", "type", "validate", "operation", "CREATE", "rejected", "true"))
		expectMovedBy(before, after, speckit.PluginDuration, nil, samplesAbove(stepBucket), nil, plugins,
			"each request's slow webhook plugin, under the plugin's name, and nothing else above 2.5 s")

		// The summary has no buckets: other requests' steps count in it too,
		// so only a lower bound is the case's.
		for _, s := range steps.LabelSets() {
			moved := after.Moved(before, speckit.StepSummary, s, sumOf, nil)
			gomega.Expect(moved[speckit.LabelKey(s)]).To(gomega.BeNumerically(">=", slowDelay.Seconds()),
				"%s{%s} must sum at least the slow step it observed", speckit.StepSummary, speckit.LabelKey(s))
		}
	})
})
