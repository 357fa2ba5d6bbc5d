package htmlreport_test

import (
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

// A repeated run's page: the flaky case as a failure card with its pass
// rate, a strip of its repetitions, and the spread of its samples.
func TestRepeatedRunShowsFlakyCasesAndTheSpreadOfSamples(t *testing.T) {
	res := reporttest.Results(t0, 1)
	res.Repeat = &results.Repeat{Count: 3}
	for i, s := range res.Specs {
		if s.State != results.Passed || len(s.Measurements) == 0 {
			continue
		}
		reps := []results.Spec{s, s, s}
		reps[1].State, reps[1].Message = results.Failed, "too slow"
		reps[2].Measurements = []results.Measurement{s.Measurements[0]}
		reps[2].Measurements[0].Value *= 2
		res.Specs[i] = results.Aggregate(reps)
		break
	}
	res.Summarize(fields.Cover)
	if res.Summary.Flaky != 1 {
		t.Fatalf("summary %+v", res.Summary)
	}
	page, _ := render(t, htmlreport.Input{Results: res, Report: report.Build(res, nil)})
	for _, want := range []string{`id="repetitions"`, `class="badge flaky"`, "passed 2 of 3", `id="measurement-spreads"`, "rep-failed", "repetition 2: failed"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// A run without --repeat shows none of it.
	plain := reporttest.Results(t0.Add(time.Hour), 1)
	page, _ = render(t, htmlreport.Input{Results: plain, Report: report.Build(plain, nil)})
	if strings.Contains(page, `id="repetitions"`) || strings.Contains(page, "Flaky") {
		t.Error("a run without --repeat shows repetitions")
	}
}
