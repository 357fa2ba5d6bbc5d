package matrix

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	matrixreport "github.com/admission-conformance/admission-conformance/framework/report/matrix"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

// Run moves the previous run to previous/, runs the targets (at most
// parallel at once), aggregates and says how it went.
func (p *Plan) Run(out io.Writer, version string) error {
	previous, err := p.keepPrevious()
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return exitcode.Usagef("cannot find this binary: %v", err)
	}
	var mu sync.Mutex // out and children
	children := map[*exec.Cmd]bool{}
	// Each child gets each signal once (they are in their own process
	// groups; a terminal's Ctrl-C reaches them through this process): the
	// first stops their runs in order, the second stops their waiting, the
	// third makes them and this process exit at once.
	forward := func() {
		mu.Lock()
		defer mu.Unlock()
		for c := range children {
			_ = c.Process.Signal(syscall.SIGINT)
		}
	}
	var forced atomic.Bool
	sig := interrupt.Watch(func(s os.Signal) {
		forced.Store(true)
		forward()
		// Each target's run exits at once too, naming what it may have
		// left (its run ID): a moment for those lines to come through.
		for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			n := len(children)
			mu.Unlock()
			if n == 0 {
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
			if sig.Received() != nil {
				in.ExitCode, in.Error = exitcode.Usage, "not run: the matrix was interrupted"
				inputs[i] = in
				return
			}
			begun := time.Now()
			in.ExitCode, in.Error = p.runTarget(out, &mu, children, exe, t)
			in.Duration = time.Since(begun)
			if res, err := results.Read(filepath.Join(p.dir, t.name, results.FileName)); err == nil {
				in.Results = &res
			}
			inputs[i] = in
			mu.Lock()
			fmt.Fprintf(out, "[%s] ended: exit %d in %s\n", t.name, in.ExitCode, in.Duration.Round(time.Second))
			mu.Unlock()
		}()
	}
	wg.Wait()
	if forced.Load() {
		select {} // the third signal's handler exits, once the targets' runs have
	}
	m := matrixreport.Build(inputs, started, time.Now(), version)
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
// output prefixed with the target's name here and kept in client.log in
// its report dir. It returns the exit code and the error line.
func (p *Plan) runTarget(out io.Writer, mu *sync.Mutex, children map[*exec.Cmd]bool, exe string, t plannedTarget) (int, string) {
	dir := t.options.ReportDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return exitcode.Usage, err.Error()
	}
	data, err := yaml.Marshal(t.options)
	if err != nil {
		return exitcode.Usage, err.Error()
	}
	optionsFile := filepath.Join(dir, "options.yaml")
	if err := os.WriteFile(optionsFile, data, 0o644); err != nil {
		return exitcode.Usage, err.Error()
	}
	logFile, err := os.Create(filepath.Join(dir, "client.log"))
	if err != nil {
		return exitcode.Usage, err.Error()
	}
	defer logFile.Close()
	// Started as the parallel run's workers are, not through
	// framework/childproc (see the engine's workerprocs.go for why).
	cmd := exec.Command(exe, "run", "--options", optionsFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	mu.Lock()
	err = cmd.Start()
	if err == nil {
		children[cmd] = true
	}
	mu.Unlock()
	if err != nil {
		return exitcode.Usage, err.Error()
	}
	var lastError string
	var copying sync.WaitGroup
	copyLines := func(r io.Reader, isErr bool) {
		defer copying.Done()
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				line = strings.TrimRight(line, "\r\n")
				mu.Lock()
				fmt.Fprintf(out, "[%s] %s\n", t.name, line)
				fmt.Fprintln(logFile, line)
				if isErr && strings.HasPrefix(line, "run-conformance: ") {
					lastError = strings.TrimPrefix(line, "run-conformance: ")
				}
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}
	copying.Add(2)
	go copyLines(stdout, false)
	go copyLines(stderr, true)
	copying.Wait()
	err = cmd.Wait()
	mu.Lock()
	delete(children, cmd)
	mu.Unlock()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if code < 0 {
			code, lastError = exitcode.Usage, "the target's run was killed: "+ee.String()
		}
	case err != nil:
		code, lastError = exitcode.Usage, err.Error()
	}
	if code == exitcode.Passed {
		lastError = ""
	}
	return code, lastError
}
