package compare

import (
	"fmt"
	"io"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// WriteText prints the diff for people: regressions first in each section.
func (d Diff) WriteText(w io.Writer) {
	mark := func(regression bool) string {
		if regression {
			return "REGRESSION"
		}
		return "changed   "
	}
	fmt.Fprintf(w, "spec cases whose state changed (%d compared):\n", d.Cases)
	if len(d.States) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, regression := range []bool{true, false} {
		for _, s := range d.States {
			if s.Regression == regression {
				fmt.Fprintf(w, "  %s %s: %s -> %s\n", mark(s.Regression), s.Case, stateText(s.Old, s.OldPassRate), stateText(s.New, s.NewPassRate))
			}
		}
	}
	fmt.Fprintf(w, "measurements that moved by more than %.0f%%, %s and %.0f%% of their bound, or across their bounds (%d compared):\n",
		d.Thresholds.Relative*100, d.Thresholds.Absolute, d.Thresholds.OfBound*100, d.Compared)
	if len(d.Measurements) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, regression := range []bool{true, false} {
		for _, m := range d.Measurements {
			if m.Regression == regression {
				fmt.Fprintf(w, "  %s %s %s%s%s: %.4g %s -> %.4g %s (%s): %s\n", mark(m.Regression), m.Case, m.Name, m.Labels,
					occurrence(m.Occurrence), m.Old, m.Unit, m.New, m.Unit, percent(m.Relative), m.Reason)
			}
		}
	}
	d.writeCodeCoverage(w)
	fmt.Fprintf(w, "%d regression(s)\n", d.Regressions())
}

func occurrence(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" #%d", n)
}

// stateText is a state, with the pass rate of a repeated case.
func stateText(s results.State, rate *results.PassRate) string {
	if rate == nil || s == "" {
		return orAbsent(string(s))
	}
	return fmt.Sprintf("%s (passed %s)", s, rate)
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

func percent(rel *float64) string {
	if rel == nil {
		return "from 0"
	}
	return fmt.Sprintf("%+.0f%%", *rel*100)
}
