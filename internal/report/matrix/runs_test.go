package matrix_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
	"github.com/admission-conformance/admission-conformance/internal/report/matrix"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// versions returns three synthetic runs read back from their results.json
// (as compare --matrix reads them), one per Kubernetes version.
func versions() []matrix.Input {
	var runs []matrix.Input
	for i, v := range []string{"v1.35.4", "v1.36.3", "v1.37.2"} {
		res := reporttest.Results(t0.Add(time.Duration(i)*time.Hour), 1)
		res.Cluster.KubernetesVersion = v
		runs = append(runs, matrix.ResultsInput("/a/versions/"+v+"/results.json", res))
	}
	return runs
}

// sideBySide is Build as compare --matrix calls it.
func sideBySide(runs []matrix.Input) matrix.Matrix {
	return matrix.Build(runs, matrix.Header{Started: t0, Finished: t0, Thresholds: compare.DefaultThresholds()})
}

func setState(in matrix.Input, short string, st results.State, msg string) {
	r := in.Results
	for i := range r.Specs {
		if r.Specs[i].ShortName == short {
			r.Specs[i].State, r.Specs[i].Message = st, msg
		}
	}
	r.Summarize(fields.Cover)
}

// states is a case's state on each target, in the targets' order; "" where
// the target has no such case.
func states(m matrix.Matrix, c matrix.Case) []results.State {
	out := make([]results.State, len(m.Targets))
	for i, t := range m.Targets {
		out[i] = c.Cells[t.Name].State
	}
	return out
}

func TestMatrixOfEqualRunsHasNoDifference(t *testing.T) {
	m := sideBySide(versions())
	if len(m.Targets) != 3 || m.Targets[0].Name != "v1.35.4" || m.Targets[2].Name != "v1.37.2" {
		t.Fatalf("targets %+v", m.Targets)
	}
	// Eight cases, one of which no run selected: it has no row.
	if len(m.Cases) != 7 || m.NotSelected != 1 || len(m.Measurements) != 9 || m.CasesDiffering != 0 || m.MeasurementsDiffering != 0 {
		t.Errorf("%d cases (%d not selected, %d differ), %d measurements (%d differ); want 7 (1, 0), 9 (0)",
			len(m.Cases), m.NotSelected, m.CasesDiffering, len(m.Measurements), m.MeasurementsDiffering)
	}
	for _, c := range m.Cases {
		if st := states(m, c); len(c.Cells) != 3 || st[0] == "" {
			t.Errorf("case %s: states %v", c.Key(), st)
		}
	}
	if m.Targets[0].DurationSeconds != 95 || m.Targets[1].Summary.Failed != 1 || m.Targets[1].State != matrix.Failed || m.Targets[1].ExitCode != matrix.ExitFailed {
		t.Errorf("targets %+v", m.Targets)
	}
}

func TestMatrixMarksStatesAndMeasurementsThatDiffer(t *testing.T) {
	runs := versions()
	// 1.35 has no MutatingAdmissionPolicy: a case is not supported there.
	setState(runs[0], "ConfigurationsCalledInNameOrder", results.NotSupported, "needs features X")
	// 1.37 fails a case that passes elsewhere.
	setState(runs[2], "MutatingBeforeValidatingOnCreate", results.Failed, "broken on 1.37")
	// A case only 1.36 and 1.37 have.
	runs[0].Results.Specs = runs[0].Results.Specs[:7]
	// Measurements: 1.37 answers 25 times slower; 1.36 propagates replica 2
	// within its bound while the others do not; 1.35 is 10 % slower at a
	// rejection: noise.
	runs[2].Results.Specs[0].Measurements[0].Value *= 25
	runs[1].Results.Specs[1].Measurements[2].Value = 0.5
	runs[0].Results.Specs[5].Measurements[0].Value *= 1.1

	m := sideBySide(runs)
	differs := map[string][]results.State{}
	for _, c := range m.Cases {
		if c.Differs {
			differs[c.ShortName] = states(m, c)
		}
	}
	if m.CasesDiffering != 3 || len(differs) != 3 {
		t.Fatalf("%d cases differ: %v", m.CasesDiffering, differs)
	}
	if got := differs["ConfigurationsCalledInNameOrder"]; got[0] != results.NotSupported || got[1] != results.Passed {
		t.Errorf("ConfigurationsCalledInNameOrder: %v", got)
	}
	if got := differs["MutatingBeforeValidatingOnCreate"]; got[2] != results.Failed {
		t.Errorf("MutatingBeforeValidatingOnCreate: %v", got)
	}
	if got := differs["InitializerFailsOpenAfterTimeout"]; got[0] != "" || got[1] != results.NotSupported {
		t.Errorf("a case absent from one run: %v", got)
	}
	reasons := map[string]string{}
	for _, r := range m.Measurements {
		if r.Differs {
			reasons[r.Label()] = r.Reason
		}
	}
	if len(reasons) != 2 || m.MeasurementsDiffering != 2 {
		t.Errorf("measurements that differ: %v", reasons)
	}
	if r := reasons["mutating-answer-to-validating-call"]; !strings.Contains(r, "+2400%") {
		t.Errorf("a 25x slower measurement: %q", r)
	}
	if r := reasons["webhook-config-propagation{replica=2}"]; r != "out of its bounds in 2 of 3 runs" {
		t.Errorf("a measurement out of bounds in some runs: %q", r)
	}
	first := m.CasesDifferingFirst()
	if !first[0].Differs || !first[2].Differs || first[3].Differs {
		t.Errorf("differing cases are not listed first: %+v", first[:4])
	}

	var text bytes.Buffer
	m.WriteText(&text)
	out := text.String()
	for _, want := range []string{
		"  v1.35.4: /a/versions/v1.35.4/results.json, started 2026-05-01T10:00:00Z, took 1m35s, harness v0.1.0-test: 3 passed, 1 failed, 1 skipped, 3 not supported",
		"spec cases: 8, 3 whose state differs between runs",
		"    v1.35.4        v1.36.3        v1.37.2        case\n",
		"  * not-supported  passed         passed         ordering/ConfigurationsCalledInNameOrder calls mutating configurations sorted by name\n",
		"  * absent         not-supported  not-supported  initializers/InitializerFailsOpenAfterTimeout",
		"    passed         passed         passed         webhooks/IgnorePolicyFailsOpenAfterTimeout",
		"    (1 case(s) no run selected left out: skipped everywhere as not selected)\n",
		"measurements: 9, 2 that differ",
		"  * 0.8            0.8            20             ms    ",
		"  * 1.4 !          0.5            1.4 !          s     <= 1      webhooks/ConfigurationPropagatesWithinBound enforces a new configuration on every replica within 1s webhook-config-propagation{replica=2}: out of its bounds in 2 of 3 runs\n",
		"1 .. 1.5",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "MatchConditionsSkipWebhook") {
		t.Errorf("a case no run selected is listed:\n%s", out)
	}
	if strings.Index(out, "* 0.8") > strings.Index(out, "    7.5") {
		t.Errorf("differing measurements are not listed first:\n%s", out)
	}

	path := filepath.Join(t.TempDir(), matrix.JSONName)
	if err := matrix.WriteJSON(path, m); err != nil {
		t.Fatal(err)
	}
	back, err := matrix.Read(path)
	if err != nil || back.CasesDiffering != 3 || len(back.Measurements) != 9 || len(back.Measurements[0].Values) != 3 {
		t.Fatalf("JSON round trip: %v %+v", err, back)
	}
	for _, c := range back.Cases {
		if c.ShortName != "InitializerFailsOpenAfterTimeout" {
			continue
		}
		if got := states(back, c); got[0] != "" || got[1] != results.NotSupported || got[2] != results.NotSupported || len(c.Cells) != 2 {
			t.Errorf("an absent case is not a missing cell in JSON: %v", c.Cells)
		}
	}
}

func TestMatrixMeasurementPresentInSomeRunsOrWithOtherBounds(t *testing.T) {
	runs := versions()
	runs[1].Results.Specs[0].Measurements = nil
	b := 2.0
	runs[2].Results.Specs[5].Measurements[0].Bound = &b
	m := sideBySide(runs)
	reasons := map[string]string{}
	for _, r := range m.Measurements {
		if r.Differs {
			reasons[r.Label()] = r.Reason
			if _, ok := r.Values["v1.36.3"]; r.Label() == "mutating-answer-to-validating-call" && ok {
				t.Errorf("a missing value is present: %+v", r.Values)
			}
		}
	}
	if reasons["mutating-answer-to-validating-call"] != "measured in 2 of 3 runs" || reasons["rejection-latency{node=node-0}"] != "bounds differ" {
		t.Errorf("reasons %v", reasons)
	}
}

func TestMatrixColumnNames(t *testing.T) {
	runs := versions()
	runs[0].Results.Cluster.KubernetesVersion = ""        // named by its folder
	runs[2].Results.Cluster.KubernetesVersion = "v1.36.3" // two runs of one version
	runs[2].Source = "/b/other/results.json"              // told apart by their folders
	mine := matrix.ResultsInput("", *runs[1].Results)
	mine.Name = "mine" // a given name wins
	runs = append(runs, mine, matrix.ResultsInput(runs[1].Source, *runs[1].Results))
	m := sideBySide(runs)
	var names []string
	for _, r := range m.Targets {
		names = append(names, r.Name)
	}
	want := "v1.35.4|v1.36.3|v1.36.3 (other)|mine|v1.36.3 #2"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("names %s, want %s", got, want)
	}
	if got := matrix.RunName(results.Results{}, "/x/runs/20260501T100000Z"); got != "20260501T100000Z" {
		t.Errorf("a dir's run is named %q", got)
	}
}
