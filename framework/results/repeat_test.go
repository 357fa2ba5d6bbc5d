package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func rep(state State, msg string, duration float64, ms ...Measurement) Spec {
	return Spec{Suite: "ordering", ShortName: "S", Name: "S case", Profile: "core", State: state, Message: msg, Duration: duration, Measurements: ms}
}

func TestAggregateGivesPassedFailedOrFlaky(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reps   []Spec
		want   State
		passed int
		runs   int
	}{
		{"passed every time", []Spec{rep(Passed, "", 1), rep(Passed, "", 1), rep(Passed, "", 1)}, Passed, 3, 3},
		{"failed every time", []Spec{rep(Failed, "boom", 1), rep(Failed, "boom", 1)}, Failed, 0, 2},
		{"both", []Spec{rep(Passed, "", 1), rep(Failed, "boom", 1), rep(Passed, "", 1), rep(Failed, "bang", 1)}, Flaky, 2, 4},
		{"one failure in many", []Spec{rep(Passed, "", 1), rep(Passed, "", 1), rep(Passed, "", 1), rep(Passed, "", 1), rep(Failed, "late", 1)}, Flaky, 4, 5},
		{"not run after a pass", []Spec{rep(Passed, "", 1), rep(Skipped, NotRun+"Interrupted by User", 0)}, Passed, 1, 1},
		{"never supported", []Spec{rep(NotSupported, "needs X", 0), rep(NotSupported, "needs X", 0)}, NotSupported, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Aggregate(tc.reps)
			if got.State != tc.want || got.PassRate == nil || got.PassRate.Passed != tc.passed || got.PassRate.Runs != tc.runs {
				t.Fatalf("state %s, pass rate %+v; want %s, %d of %d", got.State, got.PassRate, tc.want, tc.passed, tc.runs)
			}
			if len(got.Repetitions) != len(tc.reps) {
				t.Fatalf("%d repetitions recorded, want %d", len(got.Repetitions), len(tc.reps))
			}
			for i, r := range got.Repetitions {
				if r.Index != i+1 || r.State != tc.reps[i].State || r.Message != tc.reps[i].Message {
					t.Errorf("repetition %d recorded as %+v", i+1, r)
				}
			}
			if problem := got.CheckRepetitions(); problem != "" {
				t.Errorf("the aggregate disagrees with itself: %s", problem)
			}
		})
	}
}

func TestAggregateFlakyMessageNamesTheRateAndFirstFailure(t *testing.T) {
	got := Aggregate([]Spec{rep(Passed, "", 1), rep(Failed, "webhook answered 500", 3)})
	if !strings.HasPrefix(got.Message, "flaky: passed 1 of 2 (50%; 95% Wilson interval") || !strings.Contains(got.Message, "repetition 2 failed: webhook answered 500") {
		t.Errorf("message %q", got.Message)
	}
	if got.Duration != 2 {
		t.Errorf("duration %g, want the mean 2", got.Duration)
	}
}

func TestAggregateKeepsEverySampleLabelledWithItsRepetition(t *testing.T) {
	m := func(v float64) Measurement {
		return Measurement{Name: "latency", Value: v, Unit: "ms", Labels: map[string]string{"replica": "0"}}
	}
	reps := []Spec{rep(Passed, "", 1, m(1)), rep(Passed, "", 1, m(2), m(3)), rep(Passed, "", 1, m(4))}
	got := Aggregate(reps)
	if len(got.Measurements) != 4 {
		t.Fatalf("%d samples, want 4: %+v", len(got.Measurements), got.Measurements)
	}
	want := []string{"1", "2", "2", "3"}
	for i, s := range got.Measurements {
		if s.Labels[RepetitionLabel] != want[i] || s.Labels["replica"] != "0" {
			t.Errorf("sample %d labels %v, want repetition %s and replica 0", i, s.Labels, want[i])
		}
	}
	if _, ok := reps[0].Measurements[0].Labels[RepetitionLabel]; ok {
		t.Error("aggregating changed the repetitions' own labels")
	}
}

func TestWilsonInterval(t *testing.T) {
	// Reference values: the Wilson score interval, z = 1.96 (e.g. R's
	// binom::binom.wilson, or statsmodels proportion_confint method="wilson").
	for _, tc := range []struct {
		passed, runs int
		lo, hi       float64
	}{
		{2, 4, 0.1500, 0.8500},
		{3, 4, 0.3006, 0.9544},
		{0, 5, 0, 0.4345},
		{5, 5, 0.5655, 1},
		{9, 10, 0.5958, 0.9821},
	} {
		lo, hi := Wilson(tc.passed, tc.runs)
		if math.Abs(lo-tc.lo) > 1e-3 || math.Abs(hi-tc.hi) > 1e-3 {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", tc.passed, tc.runs, lo, hi, tc.lo, tc.hi)
		}
	}
	if lo, hi := Wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = [%g, %g], want [0, 1]", lo, hi)
	}
}

func TestCheckRepetitionsCatchesAFlakyCaseWrittenAsPassed(t *testing.T) {
	flaky := Aggregate([]Spec{rep(Passed, "", 1), rep(Failed, "boom", 1), rep(Passed, "", 1)})
	forged := flaky
	forged.State, forged.Message = Passed, ""
	if problem := forged.CheckRepetitions(); !strings.Contains(problem, "written passed but its repetitions give flaky") {
		t.Errorf("forged passed case: %q", problem)
	}
	rate := *flaky.PassRate
	rate.Passed = 3
	forged = flaky
	forged.PassRate = &rate
	if problem := forged.CheckRepetitions(); !strings.Contains(problem, "pass rate") {
		t.Errorf("forged pass rate: %q", problem)
	}
	bare := flaky
	bare.Repetitions = nil
	if problem := bare.CheckRepetitions(); problem == "" {
		t.Error("a flaky case without repetitions passed the check")
	}
}

func TestRepeatedResultsAreWrittenAsTheirVersionAndOldFilesStillRead(t *testing.T) {
	dir := t.TempDir()
	r := Results{APIVersion: APIVersion, Kind: Kind, Repeat: &Repeat{Count: 3},
		Specs: []Spec{Aggregate([]Spec{rep(Passed, "", 1), rep(Failed, "x", 1), rep(Passed, "", 1)})}}
	r.Summarize(nil)
	if r.Summary.Flaky != 1 || r.Summary.Passed != 0 || r.Summary.Failed != 0 {
		t.Fatalf("summary %+v, want 1 flaky and nothing passed or failed", r.Summary)
	}
	path, err := Write(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil || back.APIVersion != APIVersionRepeated || back.Specs[0].State != Flaky {
		t.Fatalf("read back %s %+v: %v", back.APIVersion, back.Summary, err)
	}
	// A run without --repeat: the file is what it always was.
	plain := Results{APIVersion: APIVersion, Kind: Kind, Specs: []Spec{rep(Passed, "", 1)}}
	path, err = Write(filepath.Join(dir, "plain"), plain)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"flaky", "repeat", "passRate", "repetitions", APIVersionRepeated} {
		if strings.Contains(string(data), absent) {
			t.Errorf("a results.json without --repeat mentions %q:\n%s", absent, data)
		}
	}
	if _, err := Read(path); err != nil {
		t.Fatal(err)
	}
}
