// Package reporttest makes synthetic results for the report packages' tests
// and for looking at a report without running a cluster: every state, every
// profile, a failure with a journal excerpt, and measurements with and
// without bounds, labelled per replica.
package reporttest

import (
	"fmt"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
)

func bound(v float64) *float64 { return &v }

// Results returns a run with cases in every state and profile. started
// sets the run's times; scale multiplies every measured value, so two runs
// can differ by a known factor.
func Results(started time.Time, scale float64) results.Results {
	m := func(name string, value float64, unit string, lower, upper *float64, labels map[string]string) results.Measurement {
		return results.Measurement{Name: name, Value: value * scale, Unit: unit, Lower: lower, Bound: upper, Labels: labels}
	}
	var propagation []results.Measurement
	for i, v := range []float64{0.012, 0.35, 1.4} {
		propagation = append(propagation, m("webhook-config-propagation", v, "s", nil, bound(1), map[string]string{"replica": fmt.Sprint(i)}))
	}
	var failOpen []results.Measurement
	for i, v := range []float64{1.004, 1.006, 1.011} {
		failOpen = append(failOpen, m("fail-open-duration", v, "s", bound(1), bound(1.5), map[string]string{"attempt": fmt.Sprint(i + 1)}))
	}
	r := results.Results{
		APIVersion:     results.APIVersion,
		Kind:           results.Kind,
		HarnessVersion: "v0.1.0-test",
		Cluster:        results.Cluster{Provider: "embedded", Topology: "embedded: 3 apiserver(s), 2 nodes", KubernetesVersion: "v1.36.3"},
		Features:       results.Features{Declared: []string{"HostWebhooksReachable", "MultipleAPIServers", "NodeAdmission"}, Claimed: []string{"WebhookConfigurationOrder"}},
		Selection:      results.Selection{},
		StartedAt:      started.UTC(),
		FinishedAt:     started.Add(95 * time.Second).UTC(),
		Specs: []results.Spec{
			{
				Suite: "ordering", ShortName: "MutatingBeforeValidatingOnCreate", Profile: "core", State: results.Passed,
				Name:     "MutatingBeforeValidatingOnCreate calls the mutating webhook first",
				Features: []string{"MutatingWebhook", "ValidatingWebhook"}, Seed: "000 mutations before validations", Duration: 0.11,
				Measurements: []results.Measurement{m("mutating-answer-to-validating-call", 0.8, "ms", nil, nil, nil)},
				Fields:       &fields.Use{Set: []fields.Path{"ValidatingWebhookConfiguration.webhooks[].name"}, Received: []fields.Path{"AdmissionRequest.uid"}},
			},
			{
				Suite: "webhooks", ShortName: "ConfigurationPropagatesWithinBound", Profile: "core", State: results.Failed,
				Name:     "ConfigurationPropagatesWithinBound enforces a new configuration on every replica within 1s",
				Features: []string{"MutatingWebhook"}, Seed: "002 a change becomes effective in 1s", Duration: 2.3,
				Message:      "replica 2 enforced the configuration after 1.4s\nExpected\n    <float64>: 1.4\nto be <=\n    <float64>: 1",
				Location:     "suites/webhooks/propagation.go:61",
				Measurements: propagation,
				// The harness's own wake-ups were late too, by less than
				// the default harnessStarved bound.
				HarnessDelayMs: bound(42.5),
				Journal: &results.JournalExcerpt{Omitted: 3, Calls: []results.JournalCall{
					{Seq: 41, Webhook: "marker-m.ac-ns.admission-conformance.io", Phase: "mutating", Path: "/ac-ns/cfg/marker-m", Operation: "CREATE", Resource: "v1/configmaps", Namespace: "ac-ns", Name: "marker-1", DryRun: true, ReceivedMs: 10.2, DurationMs: 0.3, Action: "Deny", Answered: true},
					{Seq: 42, Webhook: "m1.ac-ns.admission-conformance.io", Phase: "mutating", Path: "/ac-ns/cfg/m1", Operation: "CREATE", Resource: "v1/configmaps", Namespace: "ac-ns", Name: "subject", ReceivedMs: 1412.5, DurationMs: 0.4, Action: "Patch", Allowed: true, Answered: true},
					{Seq: 43, Webhook: "v1.ac-ns.admission-conformance.io", Phase: "validating", Path: "/ac-ns/cfg/v1", Operation: "CREATE", Resource: "v1/configmaps", Namespace: "ac-ns", Name: "subject", ReceivedMs: 1413.1, DurationMs: 1000.9, Action: "Hang", InFlight: false, Err: "client went away while hanging"},
				}},
			},
			{
				Suite: "webhooks", ShortName: "IgnorePolicyFailsOpenAfterTimeout", Profile: "core", State: results.Passed,
				Name:     "IgnorePolicyFailsOpenAfterTimeout admits the object once the timeout expires",
				Features: []string{"ValidatingWebhook"}, Seed: "002 failure policy Ignore", Duration: 3.2,
				Measurements: failOpen,
			},
			{
				Suite: "webhooks", ShortName: "MatchConditionsSkipWebhook", Profile: "core", State: results.Skipped,
				Name:    "MatchConditionsSkipWebhook does not call a webhook whose match conditions are false",
				Message: results.NotSelected, Features: []string{"WebhookMatchConditions"}, Seed: "002 matching",
			},
			{
				Suite: "ordering", ShortName: "ConfigurationsCalledInNameOrder", Profile: "extended", State: results.Passed,
				Name:     "ConfigurationsCalledInNameOrder calls mutating configurations sorted by name",
				Features: []string{"MutatingWebhook", "WebhookConfigurationOrder"}, Seed: "002 sorted by name", Duration: 0.4,
			},
			{
				Suite: "nodeadmit", ShortName: "RejectedPodKeepsReason", Profile: "extended", State: results.Passed,
				Name:     "RejectedPodKeepsReason fails the pod with the plugin's reason",
				Features: []string{"NodeAdmission"}, Seed: "004 rejected pods keep the Reason", Duration: 1.2,
				Measurements: []results.Measurement{
					m("rejection-latency", 7.5, "ms", nil, bound(1000), map[string]string{"node": "node-0"}),
					m("rejection-latency", 8.9, "ms", nil, bound(1000), map[string]string{"node": "node-1"}),
				},
			},
			{
				Suite: "nodeadmit", ShortName: "NodePluginsRunInParallel", Profile: "extended", State: results.NotSupported,
				Name:     "NodePluginsRunInParallel calls every node admission plugin",
				Message:  "needs features NodeAdmissionPlugins (the cluster does not declare them; claim them with --supported-features)",
				Features: []string{"NodeAdmission", "NodeAdmissionPlugins"}, Seed: "004 parallel plugins",
			},
			{
				Suite: "initializers", ShortName: "InitializerFailsOpenAfterTimeout", Profile: "reference", State: results.NotSupported,
				Name:     "InitializerFailsOpenAfterTimeout releases the object after the initializer's timeout",
				Message:  "needs features ReferenceInitializers (the cluster does not declare them; claim them with --supported-features)",
				Features: []string{"ReferenceInitializers"}, Seed: "002 fail-open initializers",
			},
		},
	}
	r.Summarize(fields.Cover)
	return r
}
