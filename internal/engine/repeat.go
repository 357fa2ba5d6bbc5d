package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
	"github.com/admission-conformance/admission-conformance/internal/runner"
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
