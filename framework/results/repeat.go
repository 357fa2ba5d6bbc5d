package results

import (
	"fmt"
	"maps"
	"math"
	"strconv"
)

// A run with --repeat N runs each selected case N times against the same
// cluster. One sample says little about a timing spec: a case that passes
// nine times in ten would be reported passed or failed by chance. A case
// that passed every time stays passed, one that failed every time stays
// failed, and one that did both is Flaky: never a pass, with its pass rate
// and a confidence interval. Every repetition's outcome is kept, and every
// measurement sample, labelled with its repetition.

// Flaky is the state of a case that passed in some repetitions and failed
// in others.
const Flaky State = "flaky"

// APIVersionRepeated identifies the results.json of a run with --repeat:
// it may hold flaky cases, which a reader of APIVersion would not count
// (and could take for a pass), so such a file says so in its version.
// Files of runs without --repeat keep APIVersion, byte for byte as before;
// readers accept both.
const APIVersionRepeated = "admission-conformance.io/v1alpha2"

// KnownAPIVersion reports whether a results.json of version v can be read.
func KnownAPIVersion(v string) bool { return v == APIVersion || v == APIVersionRepeated }

// RepetitionLabel is the measurement label that says which repetition
// (1-based) took a sample.
const RepetitionLabel = "repetition"

// Repeat records how the run repeated its cases.
type Repeat struct {
	// Count is how many times each repeated case ran (--repeat).
	Count int `json:"count"`
	// OnlyMeasured: only the cases that recorded a measurement in their
	// first run were repeated (--repeat-only-measured); the others ran once.
	OnlyMeasured bool `json:"onlyMeasured,omitempty"`
}

// Repetition is one run of a repeated case.
type Repetition struct {
	// Index is the repetition's number, from 1.
	Index    int     `json:"index"`
	State    State   `json:"state"`
	Message  string  `json:"message,omitempty"`
	Location string  `json:"location,omitempty"`
	Duration float64 `json:"durationSeconds"`
	// HarnessDelayMs is as in Spec, for this repetition.
	HarnessDelayMs *float64 `json:"harnessDelayMs,omitempty"`
}

// Ran reports whether the repetition ran to a verdict (passed or failed).
func (r Repetition) Ran() bool { return r.State == Passed || r.State == Failed }

// IntervalWilson95 names the confidence interval PassRate gives: the
// Wilson score interval at 95 % confidence, which, unlike the normal
// approximation, stays within [0, 1] and is meaningful for the few runs
// (and the rates of 0 and 1) a repeated run has.
const IntervalWilson95 = "wilson-95"

// z95 is the standard normal quantile for a two-sided 95 % interval.
const z95 = 1.959963984540054

// PassRate is how often a repeated case passed, of the repetitions that
// ran, with a confidence interval for the rate.
type PassRate struct {
	Passed int `json:"passed"`
	Runs   int `json:"runs"`
	// Lower and Upper bound the interval, as fractions (0–1), rounded to
	// four decimals.
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
	Interval string  `json:"interval"`
}

// NewPassRate is the pass rate of passed out of runs, with its Wilson 95 %
// interval.
func NewPassRate(passed, runs int) PassRate {
	lo, hi := Wilson(passed, runs)
	return PassRate{Passed: passed, Runs: runs, Lower: round4(lo), Upper: round4(hi), Interval: IntervalWilson95}
}

// Wilson is the Wilson score interval at 95 % confidence for passed
// successes out of runs; (0, 1) when nothing ran.
func Wilson(passed, runs int) (lower, upper float64) {
	if runs <= 0 {
		return 0, 1
	}
	n, p := float64(runs), float64(passed)/float64(runs)
	z2 := z95 * z95
	centre := (p + z2/(2*n)) / (1 + z2/n)
	half := z95 / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// String says the rate and its interval in a few words: "2 of 4 (50%;
// 95% Wilson interval 15–85%)".
func (r PassRate) String() string {
	if r.Runs == 0 {
		return "no repetition ran"
	}
	return fmt.Sprintf("%d of %d (%.0f%%; 95%% Wilson interval %.0f–%.0f%%)", r.Passed, r.Runs,
		100*float64(r.Passed)/float64(r.Runs), 100*r.Lower, 100*r.Upper)
}

// StateOfRepetitions is the state a case's repetitions give: passed if
// every one that ran passed, failed if every one failed, flaky if both;
// when none ran, the first one's state (skipped, not supported). The
// second value counts the passes and the runs.
func StateOfRepetitions(reps []Repetition) (State, PassRate) {
	passed, runs := 0, 0
	for _, r := range reps {
		if r.Ran() {
			runs++
			if r.State == Passed {
				passed++
			}
		}
	}
	rate := NewPassRate(passed, runs)
	switch {
	case runs == 0 && len(reps) > 0:
		return reps[0].State, rate
	case runs == 0:
		return Skipped, rate
	case passed == runs:
		return Passed, rate
	case passed == 0:
		return Failed, rate
	default:
		return Flaky, rate
	}
}

// Aggregate makes one case of its repetitions' outcomes (reps[i] is
// repetition i+1): the state they give, their pass rate, every
// repetition's own outcome, and every measurement sample labelled with its
// repetition. The message, location and journal are those of the first
// failed repetition, the message prefixed with the tally; the duration is
// the mean of the repetitions that ran (the case's own length, which the
// next run's schedule uses); the harness delay the largest.
func Aggregate(reps []Spec) Spec {
	if len(reps) == 0 {
		return Spec{}
	}
	out := reps[0]
	out.Message, out.Location, out.Journal, out.Measurements, out.HarnessDelayMs = "", "", nil, nil, nil
	out.Repetitions = make([]Repetition, len(reps))
	var firstFailed *Spec
	var total float64
	for i, r := range reps {
		out.Repetitions[i] = Repetition{Index: i + 1, State: r.State, Message: r.Message, Location: r.Location,
			Duration: r.Duration, HarnessDelayMs: r.HarnessDelayMs}
		if out.Repetitions[i].Ran() {
			total += r.Duration
		}
		if r.State == Failed && firstFailed == nil {
			firstFailed = &reps[i]
		}
		if r.HarnessDelayMs != nil && (out.HarnessDelayMs == nil || *r.HarnessDelayMs > *out.HarnessDelayMs) {
			d := *r.HarnessDelayMs
			out.HarnessDelayMs = &d
		}
		if out.Fields == nil {
			out.Fields = r.Fields
		}
		for _, m := range r.Measurements {
			labels := maps.Clone(m.Labels)
			if labels == nil {
				labels = map[string]string{}
			}
			labels[RepetitionLabel] = strconv.Itoa(i + 1)
			m.Labels = labels
			out.Measurements = append(out.Measurements, m)
		}
	}
	state, rate := StateOfRepetitions(out.Repetitions)
	out.State, out.PassRate = state, &rate
	if rate.Runs > 0 {
		out.Duration = total / float64(rate.Runs)
	}
	switch {
	case state == Flaky:
		out.Message = fmt.Sprintf("flaky: passed %s; repetition %d failed: %s", rate, firstFailedIndex(out.Repetitions), firstFailed.Message)
	case state == Failed:
		out.Message = fmt.Sprintf("failed in all %d repetitions that ran; repetition %d: %s", rate.Runs, firstFailedIndex(out.Repetitions), firstFailed.Message)
	case state != Passed:
		out.Message = reps[0].Message
	}
	if firstFailed != nil && state != Passed {
		out.Location, out.Journal = firstFailed.Location, firstFailed.Journal
	}
	return out
}

func firstFailedIndex(reps []Repetition) int {
	for _, r := range reps {
		if r.State == Failed {
			return r.Index
		}
	}
	return 0
}

// CheckRepetitions says how a case's written state or pass rate disagrees
// with its repetitions ("" if they agree): a flaky case written as passed
// is caught here. A flaky case without repetitions cannot be.
func (s Spec) CheckRepetitions() string {
	if len(s.Repetitions) == 0 {
		if s.State == Flaky {
			return "is flaky but lists no repetitions"
		}
		if s.PassRate != nil {
			return "has a pass rate but lists no repetitions"
		}
		return ""
	}
	state, rate := StateOfRepetitions(s.Repetitions)
	if s.State != state {
		return fmt.Sprintf("is written %s but its repetitions give %s: passed %s", s.State, state, rate)
	}
	if s.PassRate == nil || *s.PassRate != rate {
		return fmt.Sprintf("has a pass rate that does not follow from its repetitions (they give %s)", rate)
	}
	for i, r := range s.Repetitions {
		if r.Index != i+1 {
			return fmt.Sprintf("lists repetition %d in place %d", r.Index, i+1)
		}
	}
	return ""
}
