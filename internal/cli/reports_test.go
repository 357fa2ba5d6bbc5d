package cli

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
	"github.com/admission-conformance/admission-conformance/internal/reports"
)

var implementationFlags = []string{
	"--implementation-organization", "Example Org", "--implementation-project", "example-admission",
	"--implementation-url", "https://example.com/admission", "--implementation-version", "v1.2.3",
	"--implementation-contact", "@example",
}

// firstOrderingSpec is a quick spec to run on a real cluster.
func firstOrderingSpec(t *testing.T) spec.Spec {
	t.Helper()
	for _, s := range spec.All() {
		if s.Suite == "ordering" {
			return s
		}
	}
	t.Fatal("no ordering spec registered")
	return spec.Spec{}
}

// A run on the embedded cluster leaves every report in the report dir and
// a copy in the history; --rerun-failed then runs only what failed.
func TestRunWritesEveryReportAndRerunsOnlyWhatFailed(t *testing.T) {
	target := firstOrderingSpec(t)
	reportDir, hist := t.TempDir(), filepath.Join(t.TempDir(), "history")
	args := append([]string{"run", "--suite", "ordering", "--label-filter", "spec:" + target.ShortName,
		"--report-dir", reportDir, "--history", hist}, implementationFlags...)
	r := runCLI(t, args...)
	r.mustExit(t, 0)
	for _, f := range reports.Files {
		if info, err := os.Stat(filepath.Join(reportDir, f)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	res := readResults(t, reportDir)
	rep, err := report.Read(filepath.Join(reportDir, report.FileName))
	if err != nil {
		t.Fatalf("report.yaml does not validate: %v", err)
	}
	if rep.Implementation == nil || rep.Implementation.Project != "example-admission" || rep.KubernetesVersion != res.Cluster.KubernetesVersion {
		t.Errorf("report %+v", rep)
	}
	// Only one spec ran: every other core case was not selected, so core
	// is partial, never success.
	if rep.Profiles[0].Name != "core" || rep.Profiles[0].Result != report.Partial || rep.Result != report.Partial {
		t.Errorf("core %s, overall %s; want partial for a run of one spec", rep.Profiles[0].Result, rep.Result)
	}
	data, err := os.ReadFile(filepath.Join(reportDir, junit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var doc junit.TestSuites
	if err := xml.Unmarshal(data, &doc); err != nil || doc.Tests != len(res.Specs) {
		t.Errorf("junit.xml: %v, %d testcases for %d cases", err, doc.Tests, len(res.Specs))
	}
	runLog, _ := os.ReadFile(filepath.Join(reportDir, reports.RunLogName))
	if !strings.Contains(string(runLog), "PASSED        ordering/"+target.ShortName) || !strings.Contains(string(runLog), "=== report: partial") {
		t.Errorf("run.log:\n%s", runLog)
	}
	html, _ := os.ReadFile(filepath.Join(reportDir, "report.html"))
	if !strings.Contains(string(html), target.ShortName) || strings.Contains(string(html), "<script") {
		t.Errorf("report.html does not show the spec, or has a script")
	}
	runs, err := history.Runs(hist)
	if err != nil || len(runs) != 1 {
		t.Fatalf("history: %d runs, %v", len(runs), err)
	}
	for _, f := range []string{results.FileName, report.FileName, junit.FileName, reports.RunLogName} {
		if _, err := os.Stat(filepath.Join(runs[0].Dir, f)); err != nil {
			t.Errorf("history run lacks %s", f)
		}
	}

	// Nothing failed: nothing to rerun, and no cluster is started.
	r = runCLI(t, "run", "--rerun-failed", reportDir, "--report-dir", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, "nothing to rerun") || strings.Contains(r.stdout, "starting") {
		t.Fatalf("rerun of a green run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// Mark the spec failed: the rerun runs it, and only it.
	for i := range res.Specs {
		if res.Specs[i].ShortName == target.ShortName {
			res.Specs[i].State, res.Specs[i].Message = results.Failed, "failed last time"
		}
	}
	failedDir := t.TempDir()
	if _, err := results.Write(failedDir, res); err != nil {
		t.Fatal(err)
	}
	rerunDir := t.TempDir()
	r = runCLI(t, "run", "--rerun-failed", filepath.Join(failedDir, results.FileName), "--report-dir", rerunDir, "--history", hist)
	if r.code != 0 {
		t.Fatalf("rerun: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	ran := 0
	for _, s := range readResults(t, rerunDir).Specs {
		if s.Message == results.NotSelected {
			continue
		}
		ran++
		if s.ShortName != target.ShortName || s.State != results.Passed {
			t.Errorf("the rerun ran %s (%s)", s.ShortName, s.State)
		}
	}
	if ran == 0 {
		t.Errorf("the rerun ran nothing")
	}
	if runs, _ := history.Runs(hist); len(runs) != 2 {
		t.Errorf("history keeps %d runs, want 2", len(runs))
	}
}

func TestReportFlagsBadInputExitsTwo(t *testing.T) {
	green := writeSyntheticRun(t, time.Now(), nil)
	harnessFailed := writeSyntheticRun(t, time.Now(), func(r *results.Results) {
		r.Specs = append(r.Specs, results.Spec{Suite: "harness", ShortName: "BeforeSuite", Name: "BeforeSuite", State: results.Failed, Message: "boom"})
		for i := range r.Specs[:len(r.Specs)-1] {
			if r.Specs[i].State == results.Failed {
				r.Specs[i].State = results.Passed
			}
		}
	})
	unknownSpec := writeSyntheticRun(t, time.Now(), nil) // reporttest's failed spec is not registered here
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"implementation url", []string{"run", "--implementation-organization", "o", "--implementation-project", "p", "--implementation-url", "example.com", "--implementation-version", "1"}, "not an absolute http(s) URL"},
		{"implementation incomplete", []string{"run", "--implementation-project", "p"}, "organization, url, version missing"},
		{"rerun of a missing file", []string{"run", "--rerun-failed", filepath.Join(green, "nope.json")}, "--rerun-failed"},
		{"rerun after a suite failure", []string{"run", "--rerun-failed", harnessFailed}, "failed outside any spec"},
		{"rerun of an unknown spec", []string{"run", "--rerun-failed", unknownSpec}, "does not have it"},
		{"report of nothing", []string{"report", filepath.Join(green, "nope.json")}, "nope.json"},
		{"report with a bad implementation", []string{"report", green, "--implementation-url", "x"}, "implementation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			msg := strings.TrimRight(r.stderr, "\n")
			if r.code != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and one line saying %q", r.code, msg, tc.want)
			}
		})
	}
}

// report rebuilds every report from a results.json, without a cluster.
func TestReportCommandRebuildsReports(t *testing.T) {
	dir := writeSyntheticRun(t, time.Now(), nil)
	out := t.TempDir()
	r := runCLI(t, append([]string{"report", dir, "--report-dir", out}, implementationFlags...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "conformance failure (core failure, extended success, reference not-run)") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	rep, err := report.Read(filepath.Join(out, report.FileName))
	if err != nil || rep.Implementation == nil || rep.Implementation.Organization != "Example Org" {
		t.Errorf("report.yaml: %v %+v", err, rep.Implementation)
	}
	for _, f := range []string{results.FileName, junit.FileName, "report.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// A failed case carries what the fake webhooks saw during it, into
// results.json, run.log, junit.xml and report.html. Without the mutating
// webhook plugin the spec's mutating configuration is never enforced, after
// its validating ones were (their marker calls are in the journal).
func TestFailedCaseCarriesTheWebhookJournal(t *testing.T) {
	reportDir := t.TempDir()
	r := runCLI(t, "run", "--suite", "ordering", "--label-filter", "spec:MutatingBeforeValidating", "--focus", "on create$",
		"--apiserver-arg=--disable-admission-plugins=MutatingAdmissionWebhook", "--bound", "webhookReady=3s", "--report-dir", reportDir)
	r.mustExit(t, 1)
	var failed []results.Spec
	for _, s := range readResults(t, reportDir).Specs {
		if s.State == results.Failed {
			failed = append(failed, s)
		}
	}
	if len(failed) == 0 {
		t.Fatal("no case failed")
	}
	for _, s := range failed {
		if s.Journal == nil || len(s.Journal.Calls) == 0 {
			t.Errorf("%s failed without a journal excerpt: %+v", s.Name, s.Journal)
			continue
		}
		for _, c := range s.Journal.Calls {
			if c.Phase != "validating" {
				t.Errorf("a %s webhook was called on a control plane without the mutating plugin: %+v", c.Phase, c)
			}
		}
	}
	runLog, _ := os.ReadFile(filepath.Join(reportDir, reports.RunLogName))
	html, _ := os.ReadFile(filepath.Join(reportDir, "report.html"))
	junitXML, _ := os.ReadFile(filepath.Join(reportDir, junit.FileName))
	for name, content := range map[string]string{"run.log": string(runLog), "junit.xml": string(junitXML)} {
		if !strings.Contains(content, "webhook calls during the case") {
			t.Errorf("%s lacks the journal excerpt", name)
		}
	}
	if !strings.Contains(string(html), "What the fake webhooks saw, in order") {
		t.Errorf("report.html lacks the journal excerpt")
	}
}
