package matrix

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// FormatValue prints a measured value as the text and the page show it:
// four significant digits.
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
func (r MeasurementRow) Label() string {
	if r.Occurrence > 1 {
		return fmt.Sprintf("%s%s #%d", r.Name, r.Labels, r.Occurrence)
	}
	return r.Name + r.Labels
}

// WriteText prints the matrix for people: the targets, then every case's
// state per target (but those no target selected, counted in one line),
// then every measurement per target with its unit and bounds; rows that
// differ between targets are marked with * and listed first. A target
// without results has a line of its own and no column: it has no cells.
func (m Matrix) WriteText(w io.Writer) {
	fmt.Fprintln(w, "runs:")
	var columns []Target
	for _, t := range m.Targets {
		pre := ""
		if t.PreRelease {
			pre = " (pre-release)"
		}
		if !t.HasResults() {
			fmt.Fprintf(w, "  %s%s: %s, no results: %s\n", t.Name, pre, t.State, t.Error)
			continue
		}
		columns = append(columns, t)
		s, started := t.Summary, "-"
		if t.StartedAt != nil {
			started = t.StartedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  %s%s: %s, started %s, took %s, harness %s: %d passed, %d failed, %d skipped, %d not supported\n",
			t.Name, pre, orNone(t.Source), started, time.Duration(t.DurationSeconds*float64(time.Second)).Round(time.Second),
			orNone(t.HarnessVersion), s.Passed, s.Failed, s.Skipped, s.NotSupported)
	}

	width := len("not-supported")
	names := make([]string, len(columns))
	for i, t := range columns {
		width, names[i] = max(width, len(t.Name)), t.Name
	}

	fmt.Fprintf(w, "spec cases: %d, %d whose state differs between runs (marked *, listed first):\n", len(m.Cases)+m.NotSelected, m.CasesDiffering)
	row(w, false, width, names, "case")
	for _, c := range m.CasesDifferingFirst() {
		states := perColumn(columns, func(name string) string {
			if cell, ok := c.Cells[name]; ok {
				return string(cell.State)
			}
			return "absent"
		})
		row(w, c.Differs, width, states, c.Key())
	}
	if m.NotSelected > 0 {
		fmt.Fprintf(w, "    (%d case(s) no run selected left out: skipped everywhere as not selected)\n", m.NotSelected)
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
	row(w, false, width, names, fmt.Sprintf("%-*s  %-*s  measurement", unitWidth, "unit", boundsWidth, "bounds"))
	for _, r := range m.MeasurementsDifferingFirst() {
		values := perColumn(columns, func(name string) string {
			v, ok := r.Values[name]
			switch {
			case !ok:
				return "-"
			case !v.Within:
				return FormatValue(v.Value) + " !"
			}
			return FormatValue(v.Value)
		})
		tail := fmt.Sprintf("%-*s  %-*s  %s %s", unitWidth, r.Unit, boundsWidth, FormatBounds(r.Lower, r.Bound), r.Case, r.Label())
		if r.Reason != "" {
			tail += ": " + r.Reason
		}
		row(w, r.Differs, width, values, tail)
	}
}

// perColumn is a row's text cell for each column, by target name.
func perColumn(columns []Target, cell func(name string) string) []string {
	cells := make([]string, len(columns))
	for i, t := range columns {
		cells[i] = cell(t.Name)
	}
	return cells
}

// row prints one line of the grid: the margin, a cell per column, then
// what the row is.
func row(w io.Writer, differs bool, width int, cells []string, tail string) {
	var b strings.Builder
	b.WriteString(mark(differs))
	for _, c := range cells {
		fmt.Fprintf(&b, "%-*s  ", width, c)
	}
	b.WriteString(tail)
	fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
}

// mark is a row's margin: * where the targets differ.
func mark(differs bool) string {
	if differs {
		return "  * "
	}
	return "    "
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
