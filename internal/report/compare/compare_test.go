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

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func TestEqualRunsHaveNoChange(t *testing.T) {
	d := compare.Compare(reporttest.Results(t0, 1), reporttest.Results(t0.Add(time.Hour), 1), compare.DefaultThresholds())
	if d.Regressions() != 0 || len(d.States) != 0 || len(d.Measurements) != 0 {
		t.Errorf("equal runs differ: %+v", d)
	}
	if d.Cases != 8 || d.Compared != 9 {
		t.Errorf("compared %d cases and %d measurements, want 8 and 9", d.Cases, d.Compared)
	}
}

func TestStateChangesAndSlowerMeasurementsAreRegressions(t *testing.T) {
	old := reporttest.Results(t0, 1)
	cur := reporttest.Results(t0.Add(time.Hour), 1)
	set := func(short string, state results.State) {
		for i := range cur.Specs {
			if cur.Specs[i].ShortName == short {
				cur.Specs[i].State = state
			}
		}
	}
	set("MutatingBeforeValidatingOnCreate", results.Failed)   // passed -> failed
	set("ConfigurationPropagatesWithinBound", results.Passed) // failed -> passed: improvement
	set("MatchConditionsSkipWebhook", results.NotSupported)   // skipped -> not-supported: a change
	cur.Specs[0].Measurements[0].Value = 0.8 * 25             // 0.8ms -> 20ms: +2400 %, +19.2ms
	cur.Specs[5].Measurements[0].Value = 7.5 * 1.1            // +10 %: noise
	cur.Specs[2].Measurements[2].Value = 1.6                  // fail-open 1.011s -> 1.6s, beyond its 1.5s bound
	cur.Specs[1].Measurements[2].Value = 0.35                 // 1.4s -> 0.35s: back within the 1s bound
	d := compare.Compare(old, cur, compare.DefaultThresholds())

	regressions := map[string]bool{}
	for _, s := range d.States {
		regressions[s.Case] = s.Regression
	}
	if len(d.States) != 3 || !regressions["ordering/"+cur.Specs[0].Name] || regressions["webhooks/"+cur.Specs[1].Name] || regressions["webhooks/"+cur.Specs[3].Name] {
		t.Errorf("state changes %+v", d.States)
	}
	got := map[string]compare.MeasurementChange{}
	for _, m := range d.Measurements {
		got[m.Name+m.Labels] = m
	}
	if m := got["mutating-answer-to-validating-call"]; !m.Regression || m.Reason != "grew beyond the thresholds" {
		t.Errorf("a 10x slower measurement: %+v", m)
	}
	if m := got["fail-open-duration{attempt=3}"]; !m.Regression || m.Reason != "now out of its bounds" {
		t.Errorf("a measurement leaving its bounds: %+v", m)
	}
	if m, ok := got["webhook-config-propagation{replica=2}"]; !ok || m.Regression || m.Reason != "back within its bounds" {
		t.Errorf("a measurement back within its bounds is listed, not a regression: %+v", m)
	}
	if _, ok := got["rejection-latency{node=node-0}"]; ok {
		t.Errorf("a 10%% move is within the default thresholds: %+v", d.Measurements)
	}
	if d.Regressions() != 3 {
		t.Errorf("%d regressions, want 3", d.Regressions())
	}
	var text bytes.Buffer
	d.WriteText(&text)
	for _, want := range []string{
		"REGRESSION ordering/MutatingBeforeValidatingOnCreate calls the mutating webhook first: passed -> failed",
		"REGRESSION ordering/MutatingBeforeValidatingOnCreate calls the mutating webhook first mutating-answer-to-validating-call: 0.8 ms -> 20 ms (+2400%)",
		"3 regression(s)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

// The absolute threshold keeps a large relative move of a tiny value from
// counting; without a time unit only the relative threshold applies.
func TestAbsoluteThresholdAppliesToTimeUnits(t *testing.T) {
	mk := func(v float64, unit string) results.Results {
		m := results.Measurement{Name: "x", Value: v, Unit: unit}
		if unit == "s-bounded" {
			bound := 1.0
			m.Unit, m.Bound = "s", &bound
		}
		return results.Results{Specs: []results.Spec{{Suite: "s", Name: "case", State: results.Passed,
			Measurements: []results.Measurement{m}}}}
	}
	th := compare.Thresholds{Relative: 0.25, Absolute: 5 * time.Millisecond, OfBound: 0.1}
	for _, c := range []struct {
		old, cur   float64
		unit       string
		regression bool
	}{
		{1, 3, "ms", false}, // +200 % but +2ms
		{1, 7, "ms", true},  // +6ms
		{0.001, 0.003, "s", false},
		{0.001, 0.007, "s", true},
		{10, 20, "calls", true}, // no time unit: relative only
		{10, 11, "calls", false},
		{0, 1, "calls", true},             // from zero
		{0.005, 0.08, "s-bounded", false}, // +75ms: under 10 % of its 1s bound
		{0.005, 0.3, "s-bounded", true},
	} {
		d := compare.Compare(mk(c.old, c.unit), mk(c.cur, c.unit), th)
		if got := d.Regressions() == 1; got != c.regression {
			t.Errorf("%g -> %g %s: regression %t, want %t (%+v)", c.old, c.cur, c.unit, got, c.regression, d.Measurements)
		}
	}
}
