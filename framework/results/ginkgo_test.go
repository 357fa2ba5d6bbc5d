package results

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

func TestJournalAndMeasurementEntriesBecomeResults(t *testing.T) {
	excerpt := JournalExcerpt{Calls: []JournalCall{{Seq: 7, Webhook: "w", Phase: "mutating", Action: "Allow", Answered: true, Allowed: true}}, Omitted: 2}
	live := types.ReportEntry{Name: JournalEntry, Value: types.WrapEntryValue(excerpt)}
	// A report read back from JSON has only the value's JSON form.
	fromJSON := types.ReportEntry{Name: MeasurementEntry, Value: types.WrapEntryValue(nil)}
	fromJSON.Value.AsJSON = `{"name":"m","value":1.5,"unit":"s"}`
	r := types.SpecReport{LeafNodeType: types.NodeTypeIt, State: types.SpecStateFailed, ReportEntries: types.ReportEntries{live, fromJSON}}
	s := FromSpecReport(r)
	if s.Journal == nil || s.Journal.Omitted != 2 || len(s.Journal.Calls) != 1 || s.Journal.Calls[0].Seq != 7 {
		t.Errorf("journal %+v", s.Journal)
	}
	if len(s.Measurements) != 1 || s.Measurements[0].Value != 1.5 {
		t.Errorf("measurements %+v", s.Measurements)
	}
	if text := s.Journal.Text(); !strings.Contains(text, "#7 +0.0ms mutating w") || !strings.Contains(text, "2 earlier omitted") || !strings.Contains(text, "Allow, allowed") {
		t.Errorf("journal text:\n%s", text)
	}
}

func TestSkippedCasesThatNeverStartedSayWhy(t *testing.T) {
	it := func(state types.SpecState, msg string) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "x", State: state, Failure: types.Failure{Message: msg}}
	}
	report := types.Report{SpecReports: types.SpecReports{
		it(types.SpecStateSkipped, ""),
		it(types.SpecStateSkipped, NotSupportedPrefix+"needs features X"),
		it(types.SpecStateSkipped, "skipped by the spec itself"),
	}}
	got := FromGinkgo(report)
	if got[0].State != Skipped || got[0].Message != NotSelected {
		t.Errorf("a filtered case: %+v", got[0])
	}
	if got[1].State != NotSupported || got[1].Message != "needs features X" {
		t.Errorf("a not-supported case: %+v", got[1])
	}
	if got[2].Message != "skipped by the spec itself" {
		t.Errorf("a skip with a reason keeps it: %+v", got[2])
	}
	report.SpecialSuiteFailureReasons = []string{"Interrupted by User"}
	if got := FromGinkgo(report); got[0].Message != NotRun+"Interrupted by User" {
		t.Errorf("a case an interrupt kept from running: %+v", got[0])
	}
}
