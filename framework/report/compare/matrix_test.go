package compare_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/report/compare"
	"github.com/admission-conformance/admission-conformance/framework/report/reporttest"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// versions returns three synthetic runs, one per Kubernetes version.
func versions() []compare.Run {
	var runs []compare.Run
	for i, v := range []string{"v1.35.4", "v1.36.3", "v1.37.2"} {
		res := reporttest.Results(t0.Add(time.Duration(i)*time.Hour), 1)
		res.Cluster.KubernetesVersion = v
		runs = append(runs, compare.Run{Source: "/a/versions/" + v + "/results.json", Results: res})
	}
	return runs
}

func setState(r *results.Results, short string, st results.State, msg string) {
	for i := range r.Specs {
		if r.Specs[i].ShortName == short {
			r.Specs[i].State, r.Specs[i].Message = st, msg
		}
	}
	r.Summarize()
}

func TestMatrixOfEqualRunsHasNoDifference(t *testing.T) {
	m := compare.NewMatrix(versions(), compare.DefaultThresholds())
	if len(m.Runs) != 3 || m.Runs[0].Name != "v1.35.4" || m.Runs[2].Name != "v1.37.2" {
		t.Fatalf("runs %+v", m.Runs)
	}
	if len(m.Cases) != 8 || len(m.Measurements) != 9 || m.CasesDiffering != 0 || m.MeasurementsDiffering != 0 {
		t.Errorf("%d cases (%d differ), %d measurements (%d differ); want 8 (0), 9 (0)", len(m.Cases), m.CasesDiffering, len(m.Measurements), m.MeasurementsDiffering)
	}
	for _, c := range m.Cases {
		if len(c.States) != 3 || c.States[0] == "" {
			t.Errorf("case %s: states %v", c.Case, c.States)
		}
	}
	if m.Runs[0].DurationSeconds != 95 || m.Runs[1].Summary.Failed != 1 {
		t.Errorf("run 0: %+v", m.Runs[0])
	}
}

func TestMatrixMarksStatesAndMeasurementsThatDiffer(t *testing.T) {
	runs := versions()
	// 1.35 has no MutatingAdmissionPolicy: a case is not supported there.
	setState(&runs[0].Results, "ConfigurationsCalledInNameOrder", results.NotSupported, "needs features X")
	// 1.37 fails a case that passes elsewhere.
	setState(&runs[2].Results, "MutatingBeforeValidatingOnCreate", results.Failed, "broken on 1.37")
	// A case only 1.36 and 1.37 have.
	runs[0].Results.Specs = runs[0].Results.Specs[:7]
	// Measurements: 1.37 answers 25 times slower; 1.36 propagates replica 2
	// within its bound while the others do not; 1.35 is 10 % slower at a
	// rejection: noise.
	runs[2].Results.Specs[0].Measurements[0].Value *= 25
	runs[1].Results.Specs[1].Measurements[2].Value = 0.5
	runs[0].Results.Specs[5].Measurements[0].Value *= 1.1

	m := compare.NewMatrix(runs, compare.DefaultThresholds())
	differs := map[string][]results.State{}
	for _, c := range m.Cases {
		if c.Differs {
			differs[c.ShortName] = c.States
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

	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back compare.Matrix
	if err := json.Unmarshal(data, &back); err != nil || back.CasesDiffering != 3 || len(back.Measurements) != 9 || back.Measurements[0].Values[0] == nil {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
	if !strings.Contains(string(data), `"states":["","not-supported","not-supported"]`) {
		t.Errorf("an absent case is not an empty state in JSON:\n%s", data)
	}
}

func TestMatrixMeasurementPresentInSomeRunsOrWithOtherBounds(t *testing.T) {
	runs := versions()
	runs[1].Results.Specs[0].Measurements = nil
	b := 2.0
	runs[2].Results.Specs[5].Measurements[0].Bound = &b
	m := compare.NewMatrix(runs, compare.DefaultThresholds())
	reasons := map[string]string{}
	for _, r := range m.Measurements {
		if r.Differs {
			reasons[r.Label()] = r.Reason
			if r.Label() == "mutating-answer-to-validating-call" && r.Values[1] != nil {
				t.Errorf("a missing value is not nil: %+v", r.Values)
			}
		}
	}
	if reasons["mutating-answer-to-validating-call"] != "measured in 2 of 3 runs" || reasons["rejection-latency{node=node-0}"] != "bounds differ" {
		t.Errorf("reasons %v", reasons)
	}
}

func TestMatrixColumnNames(t *testing.T) {
	runs := versions()
	runs[0].Results.Cluster.KubernetesVersion = ""                           // named by its folder
	runs[2].Results.Cluster.KubernetesVersion = "v1.36.3"                    // two runs of one version
	runs[2].Source = "/b/other/results.json"                                 // told apart by their folders
	runs = append(runs, compare.Run{Name: "mine", Results: runs[1].Results}) // a given name wins
	runs = append(runs, compare.Run{Source: runs[1].Source, Results: runs[1].Results})
	m := compare.NewMatrix(runs, compare.DefaultThresholds())
	var names []string
	for _, r := range m.Runs {
		names = append(names, r.Name)
	}
	want := "v1.35.4|v1.36.3|v1.36.3 (other)|mine|v1.36.3 #2"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("names %s, want %s", got, want)
	}
	if got := compare.RunName(results.Results{}, "/x/runs/20260501T100000Z"); got != "20260501T100000Z" {
		t.Errorf("a dir's run is named %q", got)
	}
}
