package compare

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// CasesDifferingFirst lists the case rows whose state differs, then the
// others, each group in the matrix's order.
func (m Matrix) CasesDifferingFirst() []CaseRow {
	out := make([]CaseRow, 0, len(m.Cases))
	for _, differs := range []bool{true, false} {
		for _, c := range m.Cases {
			if c.Differs == differs {
				out = append(out, c)
			}
		}
	}
	return out
}

// MeasurementsDifferingFirst lists the measurement rows that differ, then
// the others, each group in the matrix's order.
func (m Matrix) MeasurementsDifferingFirst() []MeasurementRow {
	out := make([]MeasurementRow, 0, len(m.Measurements))
	for _, differs := range []bool{true, false} {
		for _, r := range m.Measurements {
			if r.Differs == differs {
				out = append(out, r)
			}
		}
	}
	return out
}

// NotSelected tells a case every run skipped because its selection left
// the case out; the text matrix leaves such cases out.
func (c CaseRow) NotSelected() bool {
	for i, st := range c.States {
		if st != results.Skipped || i >= len(c.Messages) || c.Messages[i] != results.NotSelected {
			return false
		}
	}
	return len(c.States) > 0
}

// FormatValue prints a measured value as the text and HTML matrices show
// it: four significant digits.
func FormatValue(v float64) string { return fmt.Sprintf("%.4g", v) }

// FormatBounds prints a measurement's bounds: "<= 1", ">= 1", "1 .. 1.5",
// or "" without bounds.
func FormatBounds(lower, upper *float64) string {
	switch {
	case lower != nil && upper != nil:
		return FormatValue(*lower) + " .. " + FormatValue(*upper)
	case upper != nil:
		return "<= " + FormatValue(*upper)
	case lower != nil:
		return ">= " + FormatValue(*lower)
	}
	return ""
}

// Label is a measurement row's name with its labels and, for repeats, its
// occurrence.
func (r MeasurementRow) Label() string { return r.Name + r.Labels + occurrence(r.Occurrence) }

// WriteText prints the matrix for people: the runs, then every case's state
// per run (but those no run selected, counted in one line), then every
// measurement per run with its unit and bounds; rows that differ between
// runs are marked with * and listed first.
func (m Matrix) WriteText(w io.Writer) {
	fmt.Fprintln(w, "runs:")
	for _, r := range m.Runs {
		s := r.Summary
		fmt.Fprintf(w, "  %s: %s, started %s, took %s, harness %s: %d passed, %d failed, %d skipped, %d not supported\n",
			r.Name, orNone(r.Source), r.StartedAt.UTC().Format(time.RFC3339), time.Duration(r.DurationSeconds*float64(time.Second)).Round(time.Second),
			orNone(r.HarnessVersion), s.Passed, s.Failed, s.Skipped, s.NotSupported)
	}

	width := len("not-supported")
	for _, r := range m.Runs {
		width = max(width, len(r.Name))
	}
	header := func(extra string) {
		var b strings.Builder
		b.WriteString("    ")
		for _, r := range m.Runs {
			fmt.Fprintf(&b, "%-*s  ", width, r.Name)
		}
		b.WriteString(extra)
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	mark := func(differs bool) string {
		if differs {
			return "  * "
		}
		return "    "
	}

	fmt.Fprintf(w, "spec cases: %d, %d whose state differs between runs (marked *, listed first):\n", len(m.Cases), m.CasesDiffering)
	header("case")
	notSelected := 0
	for _, c := range m.CasesDifferingFirst() {
		if c.NotSelected() {
			notSelected++
			continue
		}
		var b strings.Builder
		b.WriteString(mark(c.Differs))
		for _, st := range c.States {
			fmt.Fprintf(&b, "%-*s  ", width, orAbsent(string(st)))
		}
		b.WriteString(c.Case)
		fmt.Fprintln(w, b.String())
	}
	if notSelected > 0 {
		fmt.Fprintf(w, "    (%d case(s) no run selected left out: skipped everywhere as not selected)\n", notSelected)
	}

	th := m.Thresholds
	fmt.Fprintf(w, "measurements: %d, %d that differ between runs (marked *, listed first: missing in a run, out of bounds in some runs only, or the largest beyond %.0f%%, %s and %.0f%% of its bound above the smallest); ! marks a value out of its bounds:\n",
		len(m.Measurements), m.MeasurementsDiffering, th.Relative*100, th.Absolute, th.OfBound*100)
	if len(m.Measurements) == 0 {
		fmt.Fprintln(w, "    none")
		return
	}
	unitWidth, boundsWidth := len("unit"), len("bounds")
	for _, r := range m.Measurements {
		unitWidth = max(unitWidth, len(r.Unit))
		boundsWidth = max(boundsWidth, len(FormatBounds(r.Lower, r.Bound)))
	}
	header(fmt.Sprintf("%-*s  %-*s  measurement", unitWidth, "unit", boundsWidth, "bounds"))
	for _, r := range m.MeasurementsDifferingFirst() {
		var b strings.Builder
		b.WriteString(mark(r.Differs))
		for _, c := range r.Values {
			v := "-"
			if c != nil {
				v = FormatValue(c.Value)
				if !c.Within {
					v += " !"
				}
			}
			fmt.Fprintf(&b, "%-*s  ", width, v)
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %s %s", unitWidth, r.Unit, boundsWidth, FormatBounds(r.Lower, r.Bound), r.Case, r.Label())
		if r.Reason != "" {
			b.WriteString(": " + r.Reason)
		}
		fmt.Fprintln(w, b.String())
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
