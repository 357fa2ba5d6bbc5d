package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

// writeSyntheticRun writes a synthetic results.json (reporttest's) into a
// new dir after change edits it, and returns the dir.
func writeSyntheticRun(t *testing.T, started time.Time, change func(*results.Results)) string {
	t.Helper()
	res := reporttest.Results(started, 1)
	if change != nil {
		change(&res)
		res.Summarize(fields.Cover)
	}
	dir := t.TempDir()
	if _, err := results.Write(dir, res); err != nil {
		t.Fatal(err)
	}
	return dir
}

var compareT0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func TestComparePassesOnEqualRuns(t *testing.T) {
	old := writeSyntheticRun(t, compareT0, nil)
	cur := writeSyntheticRun(t, compareT0.Add(time.Hour), nil)
	r := runCLI(t, "compare", filepath.Join(old, results.FileName), cur)
	if r.code != 0 || !strings.Contains(r.stdout, "0 regression(s)") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestCompareFlagsAStateChange(t *testing.T) {
	old := writeSyntheticRun(t, compareT0, nil)
	cur := writeSyntheticRun(t, compareT0.Add(time.Hour), func(r *results.Results) {
		r.Specs[4].State, r.Specs[4].Message = results.Failed, "broken on purpose" // ConfigurationsCalledInNameOrder
	})
	r := runCLI(t, "compare", old, cur)
	r.mustExit(t, 1)
	if !strings.Contains(r.stdout, "REGRESSION ordering/ConfigurationsCalledInNameOrder calls mutating configurations sorted by name: passed -> failed") ||
		!strings.Contains(r.stderr, "1 regression(s)") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

func TestCompareFlagsASlowerMeasurement(t *testing.T) {
	old := writeSyntheticRun(t, compareT0, nil)
	cur := writeSyntheticRun(t, compareT0.Add(time.Hour), func(r *results.Results) {
		r.Specs[0].Measurements[0].Value *= 50 // 0.8ms -> 40ms
	})
	r := runCLI(t, "compare", old, cur)
	if r.code != 1 || !strings.Contains(r.stdout, "REGRESSION ordering/MutatingBeforeValidatingOnCreate calls the mutating webhook first mutating-answer-to-validating-call: 0.8 ms -> 40 ms (+4900%): grew beyond the thresholds") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// The same move is not a regression under a threshold it stays within.
	r = runCLI(t, "compare", "--threshold-absolute", "1s", old, cur)
	if r.code != 0 {
		t.Errorf("with --threshold-absolute 1s: exit %d\nstdout:\n%s", r.code, r.stdout)
	}
	r = runCLI(t, "compare", "-o", "json", old, cur)
	if r.code != 1 || !strings.Contains(r.stdout, `"regression": true`) {
		t.Errorf("json: exit %d\n%s", r.code, r.stdout)
	}
}

// With one argument, compare compares the two newest runs of a history dir.
func TestCompareTheTwoNewestRunsOfAHistory(t *testing.T) {
	hist := t.TempDir()
	for i, scale := range []float64{1, 100, 1} { // the middle run was slow
		res := reporttest.Results(compareT0.Add(time.Duration(i)*time.Hour), scale)
		path, err := results.Write(t.TempDir(), res)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := history.Save(hist, res, path); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLI(t, "compare", hist)
	if r.code != 0 || !strings.Contains(r.stdout, "20260501T110000Z") || !strings.Contains(r.stdout, "20260501T120000Z") {
		t.Errorf("slow run then fast run: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestCompareBadInputExitsTwo(t *testing.T) {
	good := writeSyntheticRun(t, compareT0, nil)
	notResults := t.TempDir()
	if _, err := results.Write(notResults, results.Results{APIVersion: "v0", Kind: "Other"}); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"missing file":         {"compare", good, filepath.Join(good, "nope.json")},
		"not a results.json":   {"compare", good, notResults},
		"one file":             {"compare", filepath.Join(good, results.FileName)},
		"history with one run": {"compare", good},
		"three arguments":      {"compare", good, good, good},
		"negative threshold":   {"compare", "--threshold-relative=-1", good, good},
		"bad output":           {"compare", "-o", "xml", good, good},
	} {
		t.Run(name, func(t *testing.T) {
			r := runCLI(t, args...)
			msg := strings.TrimRight(r.stderr, "\n")
			if r.code != 2 || msg == "" || strings.Contains(msg, "\n") {
				t.Errorf("exit %d, stderr %q; want 2 and one line", r.code, msg)
			}
		})
	}
}

// compare --matrix lays N runs side by side; it exits 1 when a case's state
// differs between them, and --html writes the page.
func TestCompareMatrixOfThreeVersions(t *testing.T) {
	var dirs []string
	for i, v := range []string{"v1.35.4", "v1.36.3", "v1.37.2"} {
		dirs = append(dirs, writeSyntheticRun(t, compareT0.Add(time.Duration(i)*time.Hour), func(r *results.Results) {
			r.Cluster.KubernetesVersion = v
		}))
	}
	out := t.TempDir()
	r := runCLI(t, append([]string{"compare", "--matrix", "--html", out}, dirs...)...)
	r.mustExit(t, 0)
	if !strings.Contains(r.stdout, "    v1.35.4        v1.36.3        v1.37.2        case") || !strings.Contains(r.stdout, "spec cases: 8, 0 whose state differs") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	page, err := os.ReadFile(filepath.Join(out, "matrix.html"))
	if err != nil || !strings.Contains(string(page), `<table id="cases">`) {
		t.Errorf("matrix.html: %v", err)
	}

	dirs = append(dirs, writeSyntheticRun(t, compareT0.Add(4*time.Hour), func(r *results.Results) {
		r.Cluster.KubernetesVersion = "v1.37.2"
		r.Specs[4].State = results.Failed // ConfigurationsCalledInNameOrder
	}))
	r = runCLI(t, append([]string{"compare", "--matrix", "-o", "json", "--html", filepath.Join(out, "v.html")}, dirs...)...)
	r.mustExit(t, 1)
	if !strings.Contains(r.stdout, `"casesDiffering": 1`) || !strings.Contains(r.stdout, `"name": "v1.37.2 (`) || !strings.Contains(r.stderr, "1 spec case(s) differ in state between the 4 runs") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "v.html")); err != nil {
		t.Error(err)
	}
}
