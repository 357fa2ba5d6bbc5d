package results

import (
	"encoding/json"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// MeasurementEntry is the name of the Ginkgo report entries that carry a
// Measurement.
const MeasurementEntry = "measurement"

// FieldsEntry is the name of the Ginkgo report entry that carries a case's
// FieldUse.
const FieldsEntry = "fields"

// FromGinkgo turns a Ginkgo report into per-case results. Suite-level node
// failures (BeforeSuite, AfterSuite) become entries of their own, so a run
// whose set-up failed can never look green.
func FromGinkgo(report types.Report) []Spec {
	var out []Spec
	for _, r := range report.SpecReports {
		if r.LeafNodeType != types.NodeTypeIt {
			if r.State.Is(types.SpecStateFailureStates) {
				out = append(out, Spec{
					Suite:     "harness",
					ShortName: r.LeafNodeType.String(),
					Name:      r.LeafNodeType.String(),
					State:     Failed,
					Message:   r.Failure.Message,
					Location:  r.Failure.Location.String(),
					Duration:  r.RunTime.Seconds(),
				})
			}
			continue
		}
		s := FromSpecReport(r)
		if s.State == Skipped && s.Message == "" {
			// Ginkgo gives no reason for specs it never started: either the
			// selection left them out or the run stopped before them.
			s.Message = NotSelected
			if len(report.SpecialSuiteFailureReasons) > 0 {
				s.Message = NotRun + strings.Join(report.SpecialSuiteFailureReasons, "; ")
			}
		}
		out = append(out, s)
	}
	return out
}

// Reasons given to skipped cases that never started.
const (
	NotSelected = "not selected by this run's --suite, --profile, --label-filter, --focus or --skip"
	NotRun      = "not run: "
)

// FromSpecReport converts one It.
func FromSpecReport(r types.SpecReport) Spec {
	s := Spec{
		Name:     r.FullText(),
		State:    stateOf(r),
		Duration: r.RunTime.Seconds(),
	}
	if meta, ok := spec.FromLabels(r.Labels()); ok {
		s.Suite, s.ShortName, s.Profile, s.Seed = meta.Suite, meta.ShortName, string(meta.Profile), meta.Seed
		for _, f := range meta.Features {
			s.Features = append(s.Features, string(f))
		}
	}
	if r.State != types.SpecStatePassed {
		s.Message = r.Failure.Message
		if s.State == NotSupported {
			s.Message = strings.TrimPrefix(s.Message, NotSupportedPrefix)
		}
		if r.Failure.Location.FileName != "" {
			s.Location = r.Failure.Location.String()
		}
	}
	for _, e := range r.ReportEntries {
		switch e.Name {
		case MeasurementEntry:
			var m Measurement
			if entryValue(e, &m) {
				s.Measurements = append(s.Measurements, m)
			}
		case JournalEntry:
			var j JournalExcerpt
			if entryValue(e, &j) {
				s.Journal = &j
			}
		case FieldsEntry:
			var u FieldUse
			if entryValue(e, &u) {
				s.Fields = &u
			}
		case HarnessDelayEntry:
			var ms float64
			if entryValue(e, &ms) {
				s.HarnessDelayMs = &ms
			}
		}
	}
	return s
}

// entryValue reads a report entry's value into into: the value itself when
// the report comes from this process, its JSON form otherwise.
func entryValue[T any](e types.ReportEntry, into *T) bool {
	if v, ok := e.GetRawValue().(T); ok {
		*into = v
		return true
	}
	if v, ok := e.GetRawValue().(*T); ok && v != nil {
		*into = *v
		return true
	}
	return json.Unmarshal([]byte(e.Value.AsJSON), into) == nil
}

func stateOf(r types.SpecReport) State {
	switch {
	case r.State == types.SpecStatePassed:
		return Passed
	case r.State == types.SpecStateSkipped && strings.HasPrefix(r.Failure.Message, NotSupportedPrefix):
		return NotSupported
	case r.State == types.SpecStateSkipped || r.State == types.SpecStatePending:
		return Skipped
	default:
		return Failed
	}
}
