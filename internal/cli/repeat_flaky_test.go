package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/certify"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
	"github.com/admission-conformance/admission-conformance/internal/reports"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// repeatSelection is two quick ordering specs (eight cases) whose webhooks
// allow and patch: the intermittent fault breaks every case of both.
var repeatSelection = []string{"--suite", "ordering", "--focus", "MutatingBeforeValidating", "--focus", "MutatingWebhooksInListedOrder"}

// An intermittent fault (the fake webhooks answer 500 instead of allowing
// or patching in every other repetition): with --repeat 4 every affected
// case is flaky, passed 2 of 4, in every report; the profile is not
// conformant; and verify, re-deriving the verdict from the bundle, agrees
// (exit 1).
func TestRepeatWithAnIntermittentFaultShowsFlakyCases(t *testing.T) {
	dir := t.TempDir()
	key, pub := filepath.Join(dir, "vendor.key"), filepath.Join(dir, "vendor.key.pub")
	runCLI(t, "certify", "keygen", "--out", key).mustExit(t, 0)
	reportDir := filepath.Join(dir, "report")
	r := runCLIIn(t, t.TempDir(), t.TempDir(), []string{testhook.FaultEnv + "=" + testhook.WebhookErrorsOnEvenRepetitions},
		append([]string{"certify", "--sign-key", key, "--repeat", "4", "--report-dir", reportDir}, repeatSelection...)...)
	r.mustExit(t, 1)
	if !strings.Contains(r.stdout, "0 passed, 0 failed, 8 flaky,") || !strings.Contains(r.stderr, "8 spec case(s) flaky") {
		t.Errorf("summary:\nstdout:\n%s\nstderr:\n%s", tail(r.stdout, 6), r.stderr)
	}
	res := readResults(t, reportDir)
	if res.APIVersion != results.APIVersionRepeated || res.Repeat == nil || res.Repeat.Count != 4 {
		t.Fatalf("results.json is %s with repeat %+v", res.APIVersion, res.Repeat)
	}
	flaky := 0
	for _, s := range res.Specs {
		if s.Message == results.NotSelected {
			continue
		}
		flaky++
		states := make([]string, len(s.Repetitions))
		for i, rep := range s.Repetitions {
			states[i] = string(rep.State)
		}
		if s.State != results.Flaky || s.PassRate == nil || s.PassRate.Passed != 2 || s.PassRate.Runs != 4 ||
			strings.Join(states, ",") != "passed,failed,passed,failed" || !strings.Contains(s.Message, "injected fault") {
			t.Errorf("%s: %s, pass rate %+v, repetitions %v, message %q", s.Name, s.State, s.PassRate, states, s.Message)
		}
		for _, m := range s.Measurements {
			if rep := m.Labels[results.RepetitionLabel]; rep != "1" && rep != "3" {
				t.Errorf("%s: sample %s labelled repetition %q, want 1 or 3 (the passing ones)", s.Name, m.Name, rep)
			}
		}
		t.Logf("%s: %s, passed %s", s.Name, s.State, s.PassRate)
	}
	if flaky != 8 {
		t.Errorf("%d selected cases, want 8", flaky)
	}
	rep, err := report.Read(filepath.Join(reportDir, report.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result != report.Failure || rep.Profiles[0].Result != report.Failure || rep.Profiles[0].Statistics.Flaky != 8 {
		t.Errorf("report.yaml: %s, core %s %+v", rep.Result, rep.Profiles[0].Result, rep.Profiles[0].Statistics)
	}
	for name, want := range map[string]string{junit.FileName: `type="flaky"`, "report.html": "passed 2 of 4", reports.RunLogName: "repetition 2: failed"} {
		data, err := os.ReadFile(filepath.Join(reportDir, name))
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q (%v)", name, want, err)
		}
	}
	v := runCLI(t, "verify", filepath.Join(reportDir, certify.DefaultName), "--key", pub)
	v.mustExit(t, 1)
	if !strings.Contains(v.stdout, "verdict: not conformant: conformance failure (core failure 0/") || !strings.Contains(v.stdout, " passed, 8 flaky,") {
		t.Errorf("verify:\n%s\n%s", v.stdout, v.stderr)
	}
}

// Without the fault the same selection, repeated five times with the same
// parallel workers, has no flaky case: every case passed five times.
func TestRepeatWithoutAFaultShowsNoFlakyCase(t *testing.T) {
	reportDir := t.TempDir()
	r := runCLI(t, append([]string{"run", "--repeat", "5", "--report-dir", reportDir}, repeatSelection...)...)
	r.mustExit(t, 0)
	if !strings.Contains(r.stdout, "8 passed, 0 failed, 0 flaky,") {
		t.Errorf("summary:\n%s", tail(r.stdout, 6))
	}
	res := readResults(t, reportDir)
	for _, s := range res.Specs {
		if s.Message == results.NotSelected {
			continue
		}
		if s.State != results.Passed || len(s.Repetitions) != 5 || s.PassRate == nil || s.PassRate.Passed != 5 {
			t.Errorf("%s: %s, %d repetitions, pass rate %+v", s.Name, s.State, len(s.Repetitions), s.PassRate)
		}
	}
	if res.Summary.Flaky != 0 || res.Summary.Passed != 8 {
		t.Errorf("summary %+v", res.Summary)
	}
}
