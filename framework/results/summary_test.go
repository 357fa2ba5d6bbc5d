package results

import "testing"

// TestSummaryAddCountsEveryState: one count type for a run and a profile;
// a state it does not name still counts in Total.
func TestSummaryAddCountsEveryState(t *testing.T) {
	var s Summary
	for _, st := range []State{Passed, Passed, Failed, Skipped, NotSupported, Flaky, State("other")} {
		s.Add(st)
	}
	if want := (Summary{Total: 7, Passed: 2, Failed: 1, Skipped: 1, NotSupported: 1, Flaky: 1}); s != want {
		t.Errorf("counted %+v, want %+v", s, want)
	}
}
