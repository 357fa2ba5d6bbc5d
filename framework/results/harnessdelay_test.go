package results

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

func delayed(state State, ms float64, measurements ...Measurement) Spec {
	return Spec{Name: "c", State: state, Message: "Expected\n  <int>: 1\nto equal 2\n", HarnessDelayMs: &ms, Measurements: measurements}
}

func TestAFailedCaseSaysTheHarnessWasStarved(t *testing.T) {
	bound := 2.0
	specs := []Spec{
		delayed(Failed, 340.4),
		delayed(Failed, 340, Measurement{Name: "rejection-latency", Value: 3, Bound: &bound}, Measurement{Name: "in-bounds", Value: 1, Bound: &bound}),
		delayed(Passed, 900),
		delayed(Failed, 99.6),
		{Name: "older harness", State: Failed, Message: "boom"},
	}
	NoteStarvation(specs, 100*time.Millisecond)
	NoteStarvation(specs, 100*time.Millisecond) // once is enough
	want := "Expected\n  <int>: 1\nto equal 2\n" + StarvedPrefix +
		": its wake-ups were up to 340ms late (bound harnessStarved 100ms), so a timing bound may have been missed because this machine is busy, not because the implementation is slow."
	if specs[0].Message != want {
		t.Errorf("starved failure:\n got %q\nwant %q", specs[0].Message, want)
	}
	if m := specs[1].Message; !strings.Contains(m, "so rejection-latency may be out of bounds because this machine is busy") || strings.Contains(m, "in-bounds") {
		t.Errorf("a measurement out of its bounds is not named alone: %q", m)
	}
	for _, s := range specs[2:] {
		if strings.Contains(s.Message, StarvedPrefix) {
			t.Errorf("%s case with delay %v got the note: %q", s.State, s.HarnessDelayMs, s.Message)
		}
	}
}

func TestHarnessDelayComesFromItsReportEntryAndIsOptionalInJSON(t *testing.T) {
	live := types.ReportEntry{Name: HarnessDelayEntry, Value: types.WrapEntryValue(12.5)}
	fromJSON := types.ReportEntry{Name: HarnessDelayEntry, Value: types.WrapEntryValue(nil)}
	fromJSON.Value.AsJSON = `340.25`
	for _, e := range []types.ReportEntry{live, fromJSON} {
		s := FromSpecReport(types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStatePassed, ReportEntries: types.ReportEntries{e}})
		if s.HarnessDelayMs == nil || (*s.HarnessDelayMs != 12.5 && *s.HarnessDelayMs != 340.25) {
			t.Errorf("entry %s: harness delay %v", e.Value.AsJSON, s.HarnessDelayMs)
		}
	}
	if s := FromSpecReport(types.SpecReport{LeafNodeType: types.NodeTypeIt}); s.HarnessDelayMs != nil {
		t.Errorf("a case without the entry has a delay: %v", *s.HarnessDelayMs)
	}
	without, _ := json.Marshal(Spec{Name: "c"})
	with, _ := json.Marshal(delayed(Passed, 1.5))
	if strings.Contains(string(without), "harnessDelay") || !strings.Contains(string(with), `"harnessDelayMs":1.5`) {
		t.Errorf("JSON: without %s, with %s", without, with)
	}
	if got := delayed(Passed, 12.345).HarnessDelayText(); got != "harness wake-ups up to 12.3ms late" || (Spec{}).HarnessDelayText() != "" {
		t.Errorf("text %q", got)
	}
	var back Spec
	if err := json.Unmarshal([]byte(`{"name":"c","state":"failed","durationSeconds":1}`), &back); err != nil || back.HarnessDelayMs != nil {
		t.Errorf("a case from an older harness: %v %+v", err, back)
	}
}
