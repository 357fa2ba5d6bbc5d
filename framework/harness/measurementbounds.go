package harness

import (
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// A bound recorded with a measurement is a promise the case holds: a case
// whose own assertions passed, yet recorded a measurement outside its
// bounds, fails here. Without this, a spec that records a bound and asserts
// a looser one (or none) passes a slow implementation while its report
// shows the bound missed. Declared at the top level, it runs after every
// case of every suite, after the case's body.
var _ = ginkgo.JustAfterEach(func() {
	report := ginkgo.CurrentSpecReport()
	if report.Failed() || report.State.Is(types.SpecStateSkipped) {
		return
	}
	if outside := measurementsOutside(report.ReportEntries); len(outside) > 0 {
		ginkgo.Fail("recorded outside their bounds, though the case's own assertions passed: " + strings.Join(outside, "; "))
	}
})

// measurementsOutside describes each measurement among entries that is not
// within its bounds.
func measurementsOutside(entries types.ReportEntries) []string {
	var out []string
	for _, e := range entries {
		if e.Name != results.MeasurementEntry {
			continue
		}
		m, ok := e.Value.GetRawValue().(results.Measurement)
		if !ok || m.Within() {
			continue
		}
		out = append(out, fmt.Sprintf("%s %v %s (bounds %s, labels %v)", m.Name, m.Value, m.Unit, boundsText(m), m.Labels))
	}
	return out
}

// boundsText spells a measurement's bounds as [lower, upper].
func boundsText(m results.Measurement) string {
	text := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	return "[" + text(m.Lower) + ", " + text(m.Bound) + "]"
}
