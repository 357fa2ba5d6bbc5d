package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/admission-conformance/admission-conformance/framework/parallel"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/runner"
	"github.com/admission-conformance/admission-conformance/framework/testhook"
)

// --repeat N runs each selected case N times against the same cluster
// (--repeat-only-measured: only the cases that recorded a measurement in
// their first run) and records every repetition; framework/results makes
// one case of them: passed, failed, or flaky (both), never a pass.
//
// Ginkgo runs its specs once per process, and its own repeats cannot
// serve: MustPassRepeatedly stops at the first failure and FlakeAttempts
// at the first pass (turning a flake into a pass), and neither records
// each attempt. So every repetition is a worker process of a parallel run
// (parallel.go), whatever --parallel says: a spec's repetitions run one
// after another in the spec's slot of the schedule, so its isolation holds
// for each of them and two repetitions of one spec never overlap;
// --parallel 1 runs one worker at a time, which is a serial run's order.

// maxRepeat is the most repetitions a run takes without --no-ceilings: at
// 100 the 95 % interval of a pass rate is already ±10 % at most, and a full
// run repeated 100 times takes about 1.5 hours on 2 CPUs (56 s each).
const maxRepeat = 100

// repeatCount is --repeat: a whole number, whose error says what to give.
type repeatCount int

func (r *repeatCount) String() string { return strconv.Itoa(int(*r)) }
func (r *repeatCount) Type() string   { return "int" }
func (r *repeatCount) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("not a whole number: give how many times each selected case runs, at least 1")
	}
	*r = repeatCount(n)
	return nil
}

// addRepeatFlags binds --repeat and --repeat-only-measured.
func (o *runOptions) addRepeatFlags(fs *pflag.FlagSet) {
	fs.Var((*repeatCount)(&o.Repeat), "repeat", fmt.Sprintf("run each selected case N times against the same cluster and record every outcome: "+
		"passed every time is passed, failed every time failed, both flaky (never a pass), with its pass rate; at most %d without --%s", maxRepeat, noCeilingsFlag))
	fs.BoolVar(&o.RepeatOnlyMeasured, "repeat-only-measured", o.RepeatOnlyMeasured, "with --repeat, repeat only the cases that recorded a measurement in their first run (the others run once)")
}

// validateRepeat refuses a count that repeats nothing, or more than
// maxRepeat without --no-ceilings.
func (o *runOptions) validateRepeat() error {
	if o.Repeat < 1 {
		return usageError("--repeat must be at least 1 (how many times each selected case runs; 1 runs each once), got %d", o.Repeat)
	}
	if o.Repeat > maxRepeat && !o.NoCeilings && o.attach == "" {
		return overCeiling(fmt.Errorf("--repeat %d is over the ceiling of %d repetitions (the 95%% interval of a pass rate is within ±10%% at %d; each repetition takes as long as the run)",
			o.Repeat, maxRepeat, maxRepeat))
	}
	if o.RepeatOnlyMeasured && o.Repeat < 2 {
		return usageError("--repeat-only-measured goes with --repeat 2 or more (how many times each measured case runs)")
	}
	return nil
}

// repeatArgs passes --repeat on (to an in-cluster run's pod).
func (o *runOptions) repeatArgs() []string {
	if o.Repeat <= 1 {
		return nil
	}
	a := []string{"--repeat", strconv.Itoa(o.Repeat)}
	if o.RepeatOnlyMeasured {
		a = append(a, "--repeat-only-measured")
	}
	return a
}

// repeatPolicy is what results.json records of --repeat; nil without.
func (o *runOptions) repeatPolicy() *results.Repeat {
	if o.Repeat <= 1 {
		return nil
	}
	return &results.Repeat{Count: o.Repeat, OnlyMeasured: o.RepeatOnlyMeasured}
}

// runRepeated runs a unit's repetitions one after another, each in a
// worker, prints each repetition's lines, and keeps one aggregated outcome
// per case. It returns the workers' account of what did not pass.
func (p *parallelRun) runRepeated(u parallel.Unit, progress *runner.Progress) string {
	count := p.o.Repeat
	var runs [][]results.Spec // runs[k]: the outcomes of repetition k+1
	var details strings.Builder
	for k := 1; k <= count; k++ {
		var only []string
		if k > 1 && p.o.RepeatOnlyMeasured {
			only = measuredCases(runs[0])
			if len(only) == 0 {
				break // nothing measured: every case ran once
			}
			if k == 2 {
				progress.Grow(len(only) * (count - 1))
			}
		}
		outcomes, d, started := p.runWorker(u, k, only)
		if !started {
			break // interrupted: the rest are not run
		}
		for _, s := range outcomes {
			progress.DoneRepetition(s, k, count)
		}
		if d != "" {
			fmt.Fprintf(&details, "(repetition %d of %d)\n%s", k, count, d)
		}
		runs = append(runs, outcomes)
	}
	outcomes := aggregateRuns(u.Cases, runs, count, p.o.RepeatOnlyMeasured)
	p.mu.Lock()
	p.outcomes = append(p.outcomes, outcomes...)
	p.mu.Unlock()
	return details.String()
}

// measuredCases are the cases that recorded a measurement.
func measuredCases(outcomes []results.Spec) []string {
	var out []string
	for _, s := range outcomes {
		if len(s.Measurements) > 0 && s.Suite != "harness" {
			out = append(out, s.Name)
		}
	}
	return out
}

// aggregateRuns makes one outcome per case of a unit's repetitions:
// results.Aggregate over the count repetitions of every case that ran in
// one at least (a repetition never started is recorded as not run); a
// case that never ran (not supported, skipped) or was not repeated
// (onlyMeasured) keeps its first outcome. Suite-level failures of every
// repetition are kept as they are.
func aggregateRuns(cases []string, runs [][]results.Spec, count int, onlyMeasured bool) []results.Spec {
	if len(runs) == 0 {
		return nil
	}
	var out, harness []results.Spec
	byName := make([]map[string]results.Spec, len(runs))
	for k, outcomes := range runs {
		byName[k] = map[string]results.Spec{}
		for _, s := range outcomes {
			if s.Suite == "harness" && s.Profile == "" {
				harness = append(harness, s)
				continue
			}
			byName[k][s.Name] = s
		}
	}
	for _, name := range cases {
		first, ok := byName[0][name]
		if !ok {
			continue // its worker reported nothing: Merge says so
		}
		if first.State != results.Passed && first.State != results.Failed {
			out = append(out, first)
			continue
		}
		if onlyMeasured && len(first.Measurements) == 0 {
			out = append(out, first)
			continue
		}
		reps := make([]results.Spec, count)
		for k := range count {
			s, ok := results.Spec{}, false
			if k < len(runs) {
				s, ok = byName[k][name]
			}
			switch {
			case ok:
			case k < len(runs):
				s = first
				s.State, s.Message, s.Measurements, s.Journal, s.Duration = results.Failed, "no result for this case from the worker of this repetition", nil, nil, 0
			default:
				s = first
				s.State, s.Message, s.Measurements, s.Journal, s.Duration, s.HarnessDelayMs = results.Skipped, results.NotRun+"the run was interrupted before this repetition", nil, nil, 0, nil
			}
			reps[k] = s
		}
		out = append(out, results.Aggregate(reps))
	}
	return append(out, harness...)
}

// exactCase is a Ginkgo focus that matches one case's full name only
// (Ginkgo matches it against the suite's description and the name).
func exactCase(name string) string {
	return "^" + regexp.QuoteMeta(runner.SuiteDescription+" "+name) + "$"
}

// repetitionEnv is a worker's environment: this process's, and the
// repetition it runs (testhook.RepetitionEnv; 0: not repeated).
func repetitionEnv(rep int) []string {
	if rep == 0 {
		return nil
	}
	return append(os.Environ(), testhook.RepetitionEnv+"="+strconv.Itoa(rep))
}

// flakyCount is the summary line's flaky count, when the run repeated.
func flakyCount(res results.Results) string {
	if res.Repeat == nil && res.Summary.Flaky == 0 {
		return ""
	}
	return fmt.Sprintf("%d flaky, ", res.Summary.Flaky)
}

// notPassedText says how many cases failed and how many were flaky.
func notPassedText(s results.Summary) string {
	var parts []string
	if s.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d spec case(s) failed", s.Failed))
	}
	if s.Flaky > 0 {
		parts = append(parts, fmt.Sprintf("%d spec case(s) flaky (passed in some repetitions, failed in others: never a pass)", s.Flaky))
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
