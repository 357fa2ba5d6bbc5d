package cli

import (
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// failedSpecs returns the failed cases of shortName in a run's results.
func failedSpecs(t *testing.T, report, shortName string) []results.Spec {
	t.Helper()
	var failed []results.Spec
	for _, s := range readResults(t, report).Specs {
		if s.ShortName == shortName && s.State == results.Failed {
			failed = append(failed, s)
		}
	}
	return failed
}

// Without the webhook admission plugins no configuration is ever enforced:
// every webhook spec must fail, saying so.
func TestWebhookSpecsFailWithoutTheWebhookPlugins(t *testing.T) {
	report := t.TempDir()
	r := runCLI(t, "run", "--suite", "webhooks", "--report-dir", report,
		"--focus", "FailurePolicyEveryFailureMode validating webhook, failurePolicy Fail, HTTP 500",
		"--focus", "MatchingOperations",
		"--apiserver-arg=--disable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook",
		"--bound", "webhookReady=2s")
	r.mustExit(t, 1)
	for _, name := range []string{"FailurePolicyEveryFailureMode", "MatchingOperations"} {
		failed := failedSpecs(t, report, name)
		if len(failed) != 1 || !strings.Contains(failed[0].Message, "not enforced") {
			t.Errorf("%s: want one failure saying the configuration is not enforced, got %+v", name, failed)
		}
	}
}

// A replica that sees etcd 1.5 s late enforces configuration changes late:
// the propagation spec must fail and name that replica and the bound.
func TestPropagationSpecCatchesALaggingReplica(t *testing.T) {
	report := t.TempDir()
	r := runCLI(t, "run", "--suite", "webhooks", "--report-dir", report,
		"--focus", "WebhookConfigurationPropagation validating",
		"--apiservers", "2", "--etcd-delay", "1=1500ms")
	r.mustExit(t, 1)
	failed := failedSpecs(t, report, "WebhookConfigurationPropagation")
	if len(failed) != 1 || !strings.Contains(failed[0].Message, "apiserver replica 1, bound 1s") {
		t.Fatalf("want a failure naming replica 1 and the bound, got %+v", failed)
	}
	// The healthy replica's latencies stay recorded beside the lagging one's.
	var replica0, replica1 int
	for _, m := range failed[0].Measurements {
		if m.Name == "webhook-config-propagation" && m.Labels["replica"] == "0" {
			replica0++
		}
		if m.Name == "webhook-config-propagation" && m.Labels["replica"] == "1" && !m.Within() {
			replica1++
		}
	}
	if replica0 == 0 || replica1 == 0 {
		t.Errorf("measurements: %d of replica 0, %d out-of-bound of replica 1", replica0, replica1)
	}
}

// The fail-open timing spec checks both ends of [T, T+slack]. Below T: an
// apiserver whose --request-timeout (500ms) is shorter than the webhook's
// timeoutSeconds (1s) gives up on the request before the webhook call times
// out, as an apiserver that cut webhook calls short would; the spec fails and
// records the duration below its lower bound. Above T+slack: no flag makes
// kube-apiserver ignore timeoutSeconds, so the upper end is shown by
// tightening the bound rather than by breaking the apiserver.
func TestFailOpenTimingChecksBothEnds(t *testing.T) {
	focus := "FailOpenTiming validating, timeoutSeconds 1, Ignore"
	early := t.TempDir()
	r := runCLI(t, "run", "--suite", "webhooks", "--report-dir", early, "--focus", focus,
		"--apiserver-arg=--request-timeout=500ms")
	r.mustExit(t, 1)
	failed := failedSpecs(t, early, "FailOpenTiming")
	if len(failed) != 1 || !strings.Contains(failed[0].Message, "must let the request through") {
		t.Fatalf("request timeout 500ms: want one failure on the outcome, got %+v", failed)
	}
	var below bool
	for _, m := range failed[0].Measurements {
		below = below || (m.Lower != nil && m.Value < *m.Lower && !m.Within())
	}
	if !below {
		t.Errorf("request timeout 500ms: no duration recorded below the lower bound: %+v", failed[0].Measurements)
	}
	late := t.TempDir()
	r = runCLI(t, "run", "--suite", "webhooks", "--report-dir", late, "--focus", focus, "--bound", "timingSlack=1ms")
	r.mustExit(t, 1)
	failed = failedSpecs(t, late, "FailOpenTiming")
	if len(failed) != 1 || !strings.Contains(failed[0].Message, "want between 1s and 1.001s") {
		t.Fatalf("want a failure quoting the window, got %+v", failed)
	}
}
