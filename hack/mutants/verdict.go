package mutants

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Outcome is what happened to a mutant.
type Outcome string

const (
	// Killed: at least one case of the mutant's specs failed.
	Killed Outcome = "killed"
	// Survived: every case ran and passed on the broken build.
	Survived Outcome = "SURVIVED"
	// NoVerdict: nothing ran (every case skipped or not supported), the
	// build or the cluster failed, or the run timed out.
	NoVerdict Outcome = "no verdict"
	// Equivalent: listed as unobservable through the API, not run.
	Equivalent Outcome = "equivalent"
)

// Verdict is one row of the table.
type Verdict struct {
	Mutant  Mutant        `json:"mutant"`
	Outcome Outcome       `json:"outcome"`
	Killers []string      `json:"killers,omitempty"`
	Detail  string        `json:"detail,omitempty"`
	Build   time.Duration `json:"buildNanos"`
	Run     time.Duration `json:"runNanos"`
}

// Judge turns a mutant run's results into a verdict. Cases of specs listed
// in flaky (they failed on the unmodified build) never count as kills.
func Judge(m Mutant, res results.Results, flaky map[string]bool) Verdict {
	v := Verdict{Mutant: m}
	killers := map[string]bool{}
	passed, failedFirst := 0, ""
	for _, s := range res.Specs {
		switch {
		case s.State == results.Failed && !flaky[s.ShortName] && !Interrupted(s.Message):
			killers[s.ShortName] = true
			if failedFirst == "" {
				failedFirst = firstLine(s.Message)
			}
		case s.State == results.Passed:
			passed++
		}
	}
	for k := range killers {
		v.Killers = append(v.Killers, k)
	}
	sort.Strings(v.Killers)
	switch {
	case len(v.Killers) > 0:
		v.Outcome, v.Detail = Killed, failedFirst
	case passed > 0:
		v.Outcome, v.Detail = Survived, fmt.Sprintf("%d case(s) passed on the broken build", passed)
	default:
		v.Outcome, v.Detail = NoVerdict, "no case of "+strings.Join(m.Specs, ", ")+" ran"
	}
	return v
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// WriteTable writes the verdicts as a Markdown table and a summary line.
func WriteTable(w io.Writer, verdicts []Verdict) error {
	var b strings.Builder
	b.WriteString("| mutant | breaks | outcome | killed by |\n| --- | --- | --- | --- |\n")
	counts := map[Outcome]int{}
	for _, v := range verdicts {
		counts[v.Outcome]++
		by := strings.Join(v.Killers, ", ")
		switch v.Outcome {
		case Equivalent:
			by = "equivalent: " + v.Mutant.Equivalent
		case Survived, NoVerdict:
			by = v.Detail
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", v.Mutant.Name, escape(v.Mutant.Breaks), v.Outcome, escape(by))
	}
	fmt.Fprintf(&b, "\n%d mutants: %d killed, %d survived, %d equivalent, %d without verdict\n",
		len(verdicts), counts[Killed], counts[Survived], counts[Equivalent], counts[NoVerdict])
	_, err := io.WriteString(w, b.String())
	return err
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
