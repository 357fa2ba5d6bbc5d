package matrixrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
	matrixreport "github.com/admission-conformance/admission-conformance/internal/report/matrix"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// Run moves the previous run to previous/, runs the targets (at most
// parallel at once), aggregates and says how it went.
func (p *Plan) Run(out io.Writer, version string) error {
	previous, err := p.keepPrevious()
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	// out is written by the targets' output and this function at once.
	out = childproc.SharedWriter(out)
	// Each target's run gets each signal once (they are in their own process
	// groups; a terminal's Ctrl-C reaches them through this process): the
	// first stops their runs in order, the second stops their waiting, the
	// third makes them and this process exit at once.
	var targets childproc.Group
	forward := func() { targets.Signal(syscall.SIGINT) }
	var forced atomic.Bool
	sig := interrupt.Watch(func(s os.Signal) {
		forced.Store(true)
		forward()
		// Each target's run exits at once too, naming what it may have
		// left (its run ID): a moment for those lines to come through.
		for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if targets.Running() == 0 {
				break
			}
		}
		fmt.Fprintf(os.Stderr, "run-conformance: interrupted a third time (%s): exiting now, and so did each target's run; what a target "+
			"left in its cluster goes with the cleanup command its last line names (kind targets: 'run-conformance cleanup --kind')\n", interrupt.SignalName(s))
		os.Exit(exitcode.Failed)
	})
	defer sig.Stop()
	// Each target's run stops within its own bound.
	var stopBound time.Duration
	for _, t := range p.targets {
		stopBound = max(stopBound, t.options.Bounds.InterruptStop.Duration)
	}
	sig.Tell(out, stopBound)
	go func() {
		<-sig.Ctx.Done()
		forward()
		<-sig.Again.Done()
		forward()
	}()
	started := time.Now()
	fmt.Fprintf(out, "matrix: %d target(s), %d at a time, into %s\n", len(p.targets), p.parallel, p.dir)
	if p.hostWorkers > 0 {
		fmt.Fprintf(out, "matrix: kind targets share this host: each runs %d spec workers (set the run options' parallel to choose)\n", p.hostWorkers)
	}
	inputs := make([]matrixreport.Input, len(p.targets))
	slots := make(chan struct{}, p.parallel)
	var wg sync.WaitGroup
	for i, t := range p.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			in := matrixreport.Input{Name: t.name, Description: t.description, ReportDir: t.name}
			if prev, err := results.Read(filepath.Join(p.dir, "previous", t.name, results.FileName)); err == nil && previous[t.name] {
				in.Previous = &prev
			}
			begun := time.Now()
			started := false
			if sig.Received() == nil {
				in.ExitCode, in.Error, started = p.runTarget(out, &targets, t)
			}
			if !started {
				in.ExitCode, in.Error = exitcode.Usage, "not run: the matrix was interrupted"
				inputs[i] = in
				return
			}
			in.Duration = time.Since(begun)
			if res, err := results.Read(filepath.Join(p.dir, t.name, results.FileName)); err == nil {
				in.Results = &res
			}
			inputs[i] = in
			fmt.Fprintf(out, "[%s] ended: exit %d in %s\n", t.name, in.ExitCode, in.Duration.Round(time.Second))
		}()
	}
	wg.Wait()
	if forced.Load() {
		select {} // the third signal's handler exits, once the targets' runs have
	}
	m := matrixreport.Build(inputs, matrixreport.Header{Title: matrixreport.DefaultTitle, HarnessVersion: version,
		Started: started, Finished: time.Now(), Thresholds: compare.DefaultThresholds()})
	if err := matrixreport.Write(p.dir, m); err != nil {
		return exitcode.Usagef("cannot write the matrix: %v", err)
	}
	fmt.Fprintln(out)
	for _, t := range m.Targets {
		line := fmt.Sprintf("%-20s %s", t.Name, t.State)
		if t.Result != "" {
			var profiles []string
			for _, pr := range t.Profiles {
				profiles = append(profiles, pr.Name+" "+string(pr.Result))
			}
			line += fmt.Sprintf(" conformance %s (%s)", t.Result, strings.Join(profiles, ", "))
		}
		if t.Regressions > 0 {
			line += fmt.Sprintf(", %d regressed", t.Regressions)
		}
		if t.Error != "" {
			line += ": " + t.Error
		}
		fmt.Fprintln(out, line)
	}
	fmt.Fprintf(out, "matrix in %s: %s, %s (took %s)\n", p.dir, matrixreport.JSONName, matrixreport.HTMLName, time.Since(started).Round(time.Second))
	if s := sig.Received(); s != nil {
		var ended []string
		for _, t := range m.Targets {
			ended = append(ended, fmt.Sprintf("%s exit %d", t.Name, t.ExitCode))
		}
		code := exitcode.Failed
		if m.ExitCode == matrixreport.ExitError {
			code = exitcode.Usage
		}
		return &exitcode.Error{Code: code, Err: fmt.Errorf("interrupted by %s: every target's run stopped (%s); the matrix so far is in %s",
			interrupt.SignalName(s), strings.Join(ended, ", "), filepath.Join(p.dir, matrixreport.HTMLName))}
	}
	var failed, broken []string
	for _, t := range m.Targets {
		switch t.State {
		case matrixreport.Failed:
			failed = append(failed, t.Name)
		case matrixreport.Error:
			broken = append(broken, t.Name)
		}
	}
	switch m.ExitCode {
	case matrixreport.ExitPassed:
		return nil
	case matrixreport.ExitFailed:
		return exitcode.Failedf("target(s) %s failed spec cases (see %s)", strings.Join(failed, ", "), filepath.Join(p.dir, matrixreport.HTMLName))
	default:
		return exitcode.Usagef("target(s) %s could not be run (see %s)", strings.Join(broken, ", "), filepath.Join(p.dir, matrixreport.HTMLName))
	}
}

// keepPrevious moves the matrix dir's previous run (matrix.json,
// matrix.html, its targets' report dirs) into previous/, replacing the
// one before, and returns its targets.
func (p *Plan) keepPrevious() (map[string]bool, error) {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, err
	}
	old, err := matrixreport.Read(filepath.Join(p.dir, matrixreport.JSONName))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	prev := filepath.Join(p.dir, "previous")
	if err := os.RemoveAll(prev); err != nil {
		return nil, err
	}
	if err := os.Mkdir(prev, 0o755); err != nil {
		return nil, err
	}
	targets := map[string]bool{}
	for _, f := range []string{matrixreport.JSONName, matrixreport.HTMLName} {
		if err := os.Rename(filepath.Join(p.dir, f), filepath.Join(prev, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	for _, t := range old.Targets {
		if t.ReportDir == "" || t.ReportDir != filepath.Base(t.ReportDir) || t.ReportDir == "previous" {
			continue
		}
		if err := os.Rename(filepath.Join(p.dir, t.ReportDir), filepath.Join(prev, t.ReportDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		targets[t.Name] = true
	}
	return targets, nil
}

// runTarget runs one target's `run --in-cluster` as a child process, its
// output prefixed with the target's name in out and kept in client.log in
// its report dir. It returns the exit code and the error line; started is
// false when the matrix's interrupt came before it started.
func (p *Plan) runTarget(out io.Writer, targets *childproc.Group, t plannedTarget) (code int, errLine string, started bool) {
	dir := t.options.ReportDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return exitcode.Usage, err.Error(), true
	}
	optionsFile := filepath.Join(dir, "options.yaml")
	if err := runconfig.WriteChild(optionsFile, t.options); err != nil {
		return exitcode.Usage, err.Error(), true
	}
	logFile, err := os.Create(filepath.Join(dir, "client.log"))
	if err != nil {
		return exitcode.Usage, err.Error(), true
	}
	defer logFile.Close()
	proc, err := targets.Start(childproc.Spec{Name: "target " + t.name, Args: []string{"run", "--options", optionsFile}, OwnGroup: true,
		Log: out, Prefix: "[" + t.name + "] ", Copy: logFile, ErrorPrefix: "run-conformance: "})
	if errors.Is(err, childproc.ErrSignalled) {
		return 0, "", false
	}
	if err != nil {
		return exitcode.Usage, err.Error(), true
	}
	exit := proc.Wait()
	switch {
	case exit.Killed:
		return exitcode.Usage, "the target's run was killed: " + exit.Status, true
	case exit.Code < 0:
		return exitcode.Usage, exit.Status, true
	case exit.Code == exitcode.Passed:
		return exit.Code, "", true
	}
	return exit.Code, proc.ErrorLine(), true
}
