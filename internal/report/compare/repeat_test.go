package compare_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

// A case that becomes flaky stopped passing: a regression, shown with its
// pass rate. One that was failing and is now flaky improved.
func TestFlakyCasesInCompare(t *testing.T) {
	old := reporttest.Results(t0, 1)
	cur := reporttest.Results(t0.Add(time.Hour), 1)
	flaky := func(s results.Spec) results.Spec {
		pass, fail := s, s
		pass.State, fail.State = results.Passed, results.Failed
		return results.Aggregate([]results.Spec{pass, fail, pass, pass})
	}
	changed := map[string]bool{}
	for i, s := range cur.Specs {
		if s.ShortName == "MutatingBeforeValidatingOnCreate" || s.ShortName == "ConfigurationPropagatesWithinBound" {
			cur.Specs[i] = flaky(s)
			changed[s.Suite+"/"+s.Name] = true
		}
	}
	d := compare.Compare(old, cur, compare.DefaultThresholds())
	got := map[results.State]bool{}
	for _, c := range d.States {
		if !changed[c.Case] {
			continue
		}
		if c.New != results.Flaky || c.NewPassRate == nil || c.NewPassRate.Passed != 3 {
			t.Errorf("%s: %+v", c.Case, c)
		}
		if want := c.Old == results.Passed; c.Regression != want {
			t.Errorf("%s: %s -> flaky is regression %t, want %t", c.Case, c.Old, c.Regression, want)
		}
		got[c.Old] = true
	}
	if !got[results.Passed] || !got[results.Failed] {
		t.Fatalf("changes %+v", d.States)
	}
	var text bytes.Buffer
	d.WriteText(&text)
	if !strings.Contains(text.String(), "REGRESSION") || !strings.Contains(text.String(), "passed -> flaky (passed 3 of 4 (75%; 95% Wilson interval") {
		t.Errorf("text:\n%s", text.String())
	}
}
