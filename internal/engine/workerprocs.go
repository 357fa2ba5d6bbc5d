package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// runUnit runs one unit's worker and returns the cases it reported, and,
// when a case did not pass, the worker's own account of it (Ginkgo's
// failure details) for the run's output.
func (p *parallelRun) runUnit(u parallel.Unit) ([]results.Spec, string) {
	outcomes, details, _ := p.runWorker(u, 0, nil)
	p.mu.Lock()
	if _, failed := p.failures[u.Spec.ShortName]; !failed { // (failed sets it for every spec of u)
		p.outcomes = append(p.outcomes, outcomes...) // else Merge reports them
	}
	p.mu.Unlock()
	return outcomes, details
}

// runUnitWhenReady is runUnit once what u runs against is up: a unit on
// the propagation plane waits for it, and fails, saying why, if it never
// comes (an interrupt leaves it not run).
func (p *parallelRun) runUnitWhenReady(ctx context.Context, u parallel.Unit) ([]results.Spec, string) {
	if u.Plane > 0 {
		if err := p.planes[u.Plane-1].wait(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, ""
			}
			return p.failed(u, err.Error())
		}
	}
	return p.runUnit(u)
}

// runWorker runs one worker for u: repetition rep of a run with --repeat
// (0: the only run), of the cases named in only (nil: all of u's). started
// is false when an interrupt came before it started.
func (p *parallelRun) runWorker(u parallel.Unit, rep int, only []string) (_ []results.Spec, _ string, started bool) {
	dir := filepath.Join(p.dir, u.Spec.ShortName)
	if rep > 0 {
		dir += fmt.Sprintf(".rep%d", rep)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return p.failedToStart(u, err.Error())
	}
	logPath := filepath.Join(dir, "output.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return p.failedToStart(u, err.Error())
	}
	defer logFile.Close()
	focus := p.runOpts.Selection.Focus
	if only != nil {
		// Cases the first repetition ran, so the selection's focus
		// already holds for them: name each exactly instead.
		focus = nil
		for _, c := range only {
			focus = append(focus, exactCase(c))
		}
	}
	options := filepath.Join(dir, "options.yaml")
	if err := runconfig.WriteChild(options, p.workerConfig(u, rep, dir, focus)); err != nil {
		return p.failedToStart(u, err.Error())
	}
	// Its own process group: a Ctrl-C on the terminal reaches this process
	// only, which passes it on once (forward). The stdin pipe ends the
	// worker should this process die; it writes output.log itself, so its
	// cleanup's output is kept then too.
	proc, err := p.workers.Start(childproc.Spec{Name: "worker " + u.Name(), Args: []string{"run", "--options", options},
		OwnGroup: true, EndWithParent: true, File: logFile})
	if errors.Is(err, childproc.ErrSignalled) {
		return nil, "", false // interrupted before it started: reported as not run
	}
	if err != nil {
		return p.failedToStart(u, err.Error())
	}
	exit := proc.Wait()

	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		why := fmt.Sprintf("%v (exit: %v); last output: %s", err, exit.Err, proc.Tail(8))
		outcomes, details := p.failed(u, why)
		return outcomes, details, true
	}
	outcomes := parallel.Outcomes(res)
	details := ""
	if slices.ContainsFunc(outcomes, func(s results.Spec) bool { return s.State == results.Failed }) {
		details = ginkgoDetails(logPath)
	}
	return outcomes, details, true
}

// failedToStart is failed for a worker that could not be started: it did
// run, in the sense that its cases have an outcome (failed).
func (p *parallelRun) failedToStart(u parallel.Unit, why string) ([]results.Spec, string, bool) {
	outcomes, details := p.failed(u, why)
	return outcomes, details, true
}

// failed records why a unit's worker gave no results; Merge then reports
// its cases failed with that reason.
func (p *parallelRun) failed(u parallel.Unit, why string) ([]results.Spec, string) {
	p.mu.Lock()
	for _, s := range u.Specs() {
		p.failures[s.ShortName] = why
	}
	p.mu.Unlock()
	var out []results.Spec
	for _, c := range u.Cases {
		meta := u.SpecOf(c)
		s := results.Spec{Suite: meta.Suite, ShortName: meta.ShortName, Name: c, State: results.Failed,
			Profile: string(meta.Profile), Seed: meta.Seed,
			Message: "no result from the worker process that ran " + u.Name() + ": " + why}
		for _, f := range meta.Features {
			s.Features = append(s.Features, string(f))
		}
		out = append(out, s)
	}
	return out, ""
}

// progressLine matches the lines of a worker's progress, which the
// parent prints itself; a case that did not pass has its message's first
// line indented under it.
var progressLine = regexp.MustCompile(`^\[\d+/\d+\] |^running \d+ spec case\(s\)$`)

// workerTotals matches the lines where a worker's Ginkgo counts its own
// run (of one spec), which would mislead in the run's output.
var workerTotals = regexp.MustCompile(`^\[\d+\] admission-conformance - |^Ran \d+ of \d+ Specs? in |^\s*(SUCCESS|FAIL)!|^run-conformance: |^worker: `)

// ginkgoDetails is a worker's output without its progress lines: Ginkgo's
// account of what failed.
func ginkgoDetails(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var b strings.Builder
	underProgress := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case progressLine.MatchString(line):
			underProgress = true
			continue
		case underProgress && strings.HasPrefix(line, "    "):
			continue
		}
		underProgress = false
		if workerTotals.MatchString(line) || b.Len() == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
