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
		out = append(out, FromSpecReport(r))
	}
	return out
}

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
		if e.Name != MeasurementEntry {
			continue
		}
		if m, ok := e.GetRawValue().(Measurement); ok {
			s.Measurements = append(s.Measurements, m)
			continue
		}
		var m Measurement
		if err := json.Unmarshal([]byte(e.Value.AsJSON), &m); err == nil {
			s.Measurements = append(s.Measurements, m)
		}
	}
	return s
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
