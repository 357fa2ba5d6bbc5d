package matrix

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
	"github.com/admission-conformance/admission-conformance/internal/report/htmltest"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func ptr(f float64) *float64 { return &f }

// build is Build as the matrix command calls it.
func build(inputs []Input, started, finished time.Time, harnessVersion string) Matrix {
	return Build(inputs, Header{HarnessVersion: harnessVersion, Started: started, Finished: finished, Thresholds: compare.DefaultThresholds()})
}

// run is a synthetic results.json: cases with the given states (messages
// for failures) and a propagation measurement of value ms.
func run(states map[string]results.State, ms float64) *results.Results {
	r := &results.Results{APIVersion: results.APIVersion, Kind: results.Kind, StartedAt: t0, FinishedAt: t0.Add(time.Minute),
		Cluster: results.Cluster{Provider: "kubeconfig", Topology: "existing cluster", KubernetesVersion: "v1.36.3"}}
	for _, name := range []string{"MutatingBeforeValidating", "FailOpenTiming", "WebhookConfigurationPropagation"} {
		st, ok := states[name]
		if !ok {
			continue
		}
		suite := "webhooks"
		if name == "MutatingBeforeValidating" {
			suite = "ordering"
		}
		s := results.Spec{Suite: suite, ShortName: name, Name: name + " does what it should", State: st, Profile: "core"}
		if st == results.Failed {
			s.Message = "expected <script>alert(1)</script> to be admitted\nsecond line"
		}
		if name == "WebhookConfigurationPropagation" {
			s.Measurements = []results.Measurement{
				{Name: "propagation", Value: ms, Unit: "ms", Bound: ptr(1000), Labels: map[string]string{"replica": "0"}},
				{Name: "propagation", Value: ms / 2, Unit: "ms", Bound: ptr(1000), Labels: map[string]string{"replica": "1"}},
			}
		}
		r.Specs = append(r.Specs, s)
	}
	r.Summarize(fields.Cover)
	return r
}

func allPassed(ms float64) *results.Results {
	return run(map[string]results.State{"MutatingBeforeValidating": results.Passed, "FailOpenTiming": results.Passed,
		"WebhookConfigurationPropagation": results.Passed}, ms)
}

func TestBuildPutsCasesAndMeasurementsSideBySide(t *testing.T) {
	failing := run(map[string]results.State{"MutatingBeforeValidating": results.Failed, "FailOpenTiming": results.Passed,
		"WebhookConfigurationPropagation": results.Passed}, 1500)
	m := build([]Input{
		{Name: "prod", Description: "kubeconfig prod.yaml", ExitCode: 0, Duration: 90 * time.Second, ReportDir: "prod", Results: allPassed(10)},
		{Name: "kind-ha", Description: "kind ha", ExitCode: 1, ReportDir: "kind-ha", Results: failing},
		{Name: "lab", Description: "kubeconfig lab.yaml", ExitCode: 2, Error: "cluster at https://10.0.0.1 does not answer", ReportDir: "lab"},
	}, t0, t0.Add(5*time.Minute), "v0.1.0")
	if m.ExitCode != ExitError {
		t.Errorf("exit code %d, want 2: a target could not be run", m.ExitCode)
	}
	states := map[string]TargetState{}
	for _, tg := range m.Targets {
		states[tg.Name] = tg.State
	}
	if states["prod"] != Passed || states["kind-ha"] != Failed || states["lab"] != Error {
		t.Errorf("states %v", states)
	}
	if m.Targets[2].Error == "" || m.Targets[2].Summary != nil || m.Targets[0].Result != "success" || len(m.Targets[0].Profiles) == 0 {
		t.Errorf("targets %+v", m.Targets)
	}
	if len(m.Cases) != 3 || m.Cases[0].Suite != "ordering" {
		t.Fatalf("cases %+v", m.Cases)
	}
	c := m.Cases[0]
	if c.Cells["prod"].State != results.Passed || c.Cells["kind-ha"].State != results.Failed || c.Cells["kind-ha"].Message != "expected <script>alert(1)</script> to be admitted" {
		t.Errorf("cells %+v", c.Cells)
	}
	if _, ok := c.Cells["lab"]; ok {
		t.Error("a target without results has a cell")
	}
	if len(m.Measurements) != 2 {
		t.Fatalf("measurement rows %+v", m.Measurements)
	}
	row := m.Measurements[0]
	if row.Labels != "{replica=0}" || row.Values["prod"].Value != 10 || row.Values["kind-ha"].Value != 1500 || row.Values["kind-ha"].Within || !row.Values["prod"].Within {
		t.Errorf("row %+v", row)
	}
	if m.Previous {
		t.Error("compared with a previous run that does not exist")
	}
	// Without the unreachable target: 1; all passed: 0.
	if m := build([]Input{{Name: "a", Results: allPassed(1)}, {Name: "b", ExitCode: 1, Results: failing}}, t0, t0, ""); m.ExitCode != ExitFailed {
		t.Errorf("exit code %d, want 1", m.ExitCode)
	}
	if m := build([]Input{{Name: "a", Results: allPassed(1)}}, t0, t0, ""); m.ExitCode != ExitPassed {
		t.Errorf("exit code %d, want 0", m.ExitCode)
	}
	// A run that exited 0 but wrote no results could not be run.
	if m := build([]Input{{Name: "a"}}, t0, t0, ""); m.ExitCode != ExitError || m.Targets[0].Error == "" {
		t.Errorf("no results: %+v", m)
	}
}

func TestRegressedCellsAgainstThePreviousRun(t *testing.T) {
	before := run(map[string]results.State{"MutatingBeforeValidating": results.Passed, "FailOpenTiming": results.Failed,
		"WebhookConfigurationPropagation": results.Passed}, 10)
	now := run(map[string]results.State{"MutatingBeforeValidating": results.Failed, "FailOpenTiming": results.Passed,
		"WebhookConfigurationPropagation": results.Passed}, 900)
	m := build([]Input{
		{Name: "a", ExitCode: 1, Results: now, Previous: before},
		{Name: "b", Results: allPassed(10), Previous: allPassed(10)},
		{Name: "new", Results: allPassed(10)},
	}, t0, t0, "")
	if !m.Previous {
		t.Error("not marked as compared")
	}
	byName := map[string]Case{}
	for _, c := range m.Cases {
		byName[c.ShortName] = c
	}
	if cell := byName["MutatingBeforeValidating"].Cells["a"]; !cell.Regressed || cell.Previous != results.Passed {
		t.Errorf("passed -> failed not marked: %+v", cell)
	}
	if cell := byName["FailOpenTiming"].Cells["a"]; cell.Regressed {
		t.Errorf("failed -> passed marked as a regression: %+v", cell)
	}
	// 10 ms -> 900 ms against a 1 s bound: beyond half the bound.
	var grew int
	for _, r := range m.Measurements {
		if v := r.Values["a"]; v.Regressed {
			grew++
			if v.Previous == 0 {
				t.Errorf("regressed value without its previous: %+v", v)
			}
		}
		if r.Values["b"].Regressed || r.Values["new"].Regressed {
			t.Errorf("an unchanged value regressed: %+v", r)
		}
	}
	if grew != 1 {
		t.Errorf("%d regressed measurement(s), want 1 (replica 0: 10 -> 900 ms; replica 1: 5 -> 450 ms stays within half the bound)", grew)
	}
	regressions := map[string]int{}
	for _, tg := range m.Targets {
		regressions[tg.Name] = tg.Regressions
	}
	if regressions["a"] != 2 || regressions["b"] != 0 || regressions["new"] != 0 {
		t.Errorf("regressions %v", regressions)
	}
	if m.Targets[2].WasRun {
		t.Error("a new target marked as run before")
	}
}

func parse(t *testing.T, m Matrix) (string, *html.Node) {
	t.Helper()
	return htmltest.Render(t, func(w io.Writer) error { return Render(w, m) })
}

func TestPageIsSelfContainedEscapedAndMarksRegressions(t *testing.T) {
	before := allPassed(10)
	now := run(map[string]results.State{"MutatingBeforeValidating": results.Failed, "FailOpenTiming": results.Passed,
		"WebhookConfigurationPropagation": results.Passed}, 10)
	m := build([]Input{
		{Name: "prod<eu>", ExitCode: 1, ReportDir: "prod", Results: now, Previous: before},
		{Name: "lab", ExitCode: 2, Error: "cluster <unreachable>", ReportDir: "lab"},
	}, t0, t0.Add(time.Minute), "v1")
	page, doc := parse(t, m)
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "prod<eu>") || strings.Contains(page, "<unreachable>") {
		t.Error("text from results reached the page unescaped")
	}
	var regressed, failedTitles, headers int
	htmltest.Walk(doc, func(n *html.Node) {
		switch n.Data {
		case "script", "iframe", "object", "embed", "link", "img":
			t.Errorf("<%s> in a page that must fetch and run nothing", n.Data)
		case "a":
			if h := htmltest.Attr(n, "href"); strings.Contains(h, "://") || strings.HasPrefix(h, "//") {
				t.Errorf("link out of the matrix dir: %s", h)
			}
		case "td":
			cls := htmltest.Attr(n, "class")
			if strings.Contains(cls, "regressed") {
				regressed++
			}
			if strings.HasPrefix(cls, "failed") && strings.Contains(htmltest.Attr(n, "title"), "expected <script>alert(1)</script> to be admitted") {
				failedTitles++
			}
		case "th":
			if n.FirstChild != nil && (n.FirstChild.Data == "prod<eu>" || n.FirstChild.Data == "lab") {
				headers++
			}
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") || strings.Contains(a.Val, "javascript:") {
				t.Errorf("active content: %s=%q", a.Key, a.Val)
			}
		}
	})
	if regressed != 1 {
		t.Errorf("%d regressed cell(s) marked, want 1", regressed)
	}
	if failedTitles != 1 {
		t.Errorf("the failure message is not on its cell's hover (%d)", failedTitles)
	}
	if headers < 4 {
		t.Errorf("target columns: %d headers", headers)
	}
	for _, want := range []string{`id="failures"`, "1 regressed cell(s)", "Exit code 2", "prod/report.html"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestWriteAndRead(t *testing.T) {
	dir := t.TempDir()
	m := build([]Input{{Name: "a", Results: allPassed(3)}}, t0, t0.Add(time.Second), "v1")
	if err := Write(dir, m); err != nil {
		t.Fatal(err)
	}
	got, err := Read(filepath.Join(dir, JSONName))
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != Kind || len(got.Cases) != 3 || got.Targets[0].State != Passed {
		t.Errorf("read back %+v", got)
	}
	if _, err := Read(filepath.Join(dir, HTMLName)); err == nil {
		t.Error("matrix.html read as matrix.json")
	}
}

// TestCasesNoTargetSelectedAreLeftOut: a case every target left out of its
// selection has no row (it is counted); one that a target ran keeps its
// row, with the other target's not-selected cell.
func TestCasesNoTargetSelectedAreLeftOut(t *testing.T) {
	notSelected := func(r *results.Results, name string) *results.Results {
		for i := range r.Specs {
			if r.Specs[i].ShortName == name {
				r.Specs[i].State, r.Specs[i].Message = results.Skipped, results.NotSelected
			}
		}
		return r
	}
	a := notSelected(notSelected(allPassed(1), "FailOpenTiming"), "MutatingBeforeValidating")
	b := notSelected(allPassed(1), "FailOpenTiming")
	m := build([]Input{{Name: "a", Results: a}, {Name: "b", Results: b}}, t0, t0, "")
	var rows []string
	for _, c := range m.Cases {
		rows = append(rows, c.ShortName)
	}
	if m.NotSelected != 1 || strings.Join(rows, ",") != "MutatingBeforeValidating,WebhookConfigurationPropagation" {
		t.Errorf("rows %v, not selected %d", rows, m.NotSelected)
	}
	if cell := m.Cases[0].Cells["a"]; cell.State != results.Skipped {
		t.Errorf("target a's cell %+v", cell)
	}
}
