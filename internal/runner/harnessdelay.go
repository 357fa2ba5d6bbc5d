package runner

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/lateness"
)

// startLateness starts the monitor of the harness's own wake-ups for a run.
// Its history must reach back over the longest case, the spec timeout and
// the cleanups after it, or a long case's delay would be a lower bound.
func startLateness(b bounds.Bounds, o lateness.Options) *lateness.Monitor {
	if o.Keep == 0 {
		o.Keep = b.Spec.Duration + b.Cleanup.Duration
	}
	return lateness.Start(o)
}

// recordHarnessDelay attaches to a case that ran how late the harness's
// wake-ups came during it. As a ReportAfterEach it runs once the case and
// its cleanups are over, so the window is the whole case, and an entry added
// there reaches the suite's report (and a worker's results.json) like the
// measurements do.
func recordHarnessDelay(mon *lateness.Monitor, r ginkgo.SpecReport) {
	if r.StartTime.IsZero() || r.EndTime.IsZero() {
		return // never started: filtered out, or the run stopped before it
	}
	late := mon.Window(r.StartTime, r.EndTime).Max
	ginkgo.AddReportEntry(results.HarnessDelayEntry, float64(late.Microseconds())/1000, ginkgo.ReportEntryVisibilityNever)
}
