package mutants

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Build builds the harness copy (against the private module copies) into
// Binary and says how long it took; the error carries the compiler's output.
func (w *WorkDir) Build(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", w.Binary(), "./cmd/run-conformance")
	cmd.Dir = w.Harness()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return time.Since(start), fmt.Errorf("go build: %v\n%s", err, out)
	}
	return time.Since(start), nil
}

// RunRequest is one run of the built harness.
type RunRequest struct {
	// Name names the run's report dir (Reports(Name)).
	Name string
	// LabelFilter selects the specs; empty runs the full default selection.
	LabelFilter string
	// Args are further `run` flags.
	Args []string
	// Env is added to the run's environment.
	Env []string
	// Timeout ends the run with SIGINT (the harness cleans up), then SIGKILL.
	Timeout time.Duration
	// FailFast interrupts the run at its first failed case (of a spec not in
	// Ignore): enough for a verdict, and much shorter when a mutant breaks a
	// path every spec takes. Cases the interrupt itself cut short are
	// reported failed by the harness; Interrupted tells them apart.
	FailFast bool
	// Ignore are specs whose failures do not stop a FailFast run (they
	// failed without any fault: the baseline's).
	Ignore map[string]bool
	// Lock, when set, is a file held with an exclusive flock for the run,
	// so runs of other tools on the machine that take the same lock never
	// overlap it (timing specs measure against a quiet machine).
	Lock string
}

// FailedLine is how the run's progress line of a failed case starts after
// its counter ("[3/10] FAILED ...").
const failedLine = "] FAILED "

// Run runs the built harness and reads its results. The error says why no
// verdict could be had: no results, a timeout, or an exit other than 0 or 1
// (a run interrupted for FailFast exits 1 and is not an error).
func (w *WorkDir) Run(ctx context.Context, r RunRequest) (results.Results, error) {
	dir := w.Reports(r.Name)
	if err := os.RemoveAll(dir); err != nil {
		return results.Results{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return results.Results{}, err
	}
	if r.Lock != "" {
		unlock, err := lockFile(r.Lock)
		if err != nil {
			return results.Results{}, err
		}
		defer unlock()
	}
	ctx, cancel := context.WithTimeout(ctx, r.Timeout)
	defer cancel()
	args := []string{"run", "--report-dir", dir}
	if r.LabelFilter != "" {
		args = append(args, "--label-filter", r.LabelFilter)
	}
	args = append(args, r.Args...)
	cmd := exec.CommandContext(ctx, w.Binary(), args...)
	cmd.Env = append(os.Environ(), r.Env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	logFile, err := os.Create(filepath.Join(dir, "output.log"))
	if err != nil {
		return results.Results{}, err
	}
	defer logFile.Close()
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return results.Results{}, err
	}
	if err := cmd.Start(); err != nil {
		return results.Results{}, err
	}
	var interrupted sync.Once
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(logFile, line)
		if r.FailFast && strings.Contains(line, failedLine) && !r.Ignore[failedSpec(line)] {
			interrupted.Do(func() { _ = cmd.Process.Signal(os.Interrupt) })
		}
	}
	_, _ = io.Copy(logFile, stdout)
	runErr := cmd.Wait()
	res, readErr := results.Read(filepath.Join(dir, results.FileName))
	var exit *exec.ExitError
	switch {
	case readErr != nil:
		return res, fmt.Errorf("no results (%v): %v; see %s", runErr, readErr, logFile.Name())
	case ctx.Err() != nil:
		return res, fmt.Errorf("timed out after %v", r.Timeout)
	case runErr != nil && !(errors.As(runErr, &exit) && exit.ExitCode() == 1):
		return res, fmt.Errorf("run: %v; see %s", runErr, logFile.Name())
	}
	return res, nil
}

// lockFile takes an exclusive flock on path, waiting for other holders.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// failedSpec is the spec short name of a progress line
// "[3/10] FAILED        suite/Spec: case (...)".
func failedSpec(line string) string {
	_, rest, ok := strings.Cut(line, failedLine)
	if !ok {
		return ""
	}
	rest = strings.TrimSpace(rest)
	_, rest, _ = strings.Cut(rest, "/")
	name, _, _ := strings.Cut(rest, ":")
	return name
}

// Interrupted reports whether a failed case failed only because the run
// was interrupted (FailFast): cut short in its worker, or by Ginkgo.
func Interrupted(message string) bool {
	return strings.Contains(message, "Interrupted by User") || strings.Contains(message, "(exit: signal: interrupt)")
}

// Test runs go test -count=1 -run '^test$' pkg in the harness copy with
// env added, holding lock if set; failed is whether a test failed (a build
// failure is an error, not a failed test).
func (w *WorkDir) Test(ctx context.Context, pkg, test string, env []string, lock string) (failed bool, output string, err error) {
	if lock != "" {
		unlock, err := lockFile(lock)
		if err != nil {
			return false, "", err
		}
		defer unlock()
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-run", "^"+test+"$", pkg)
	cmd.Dir = w.Harness()
	cmd.Env = append(os.Environ(), env...)
	out, runErr := cmd.CombinedOutput()
	switch {
	case runErr == nil:
		return false, string(out), nil
	case strings.Contains(string(out), "--- FAIL: "+test):
		return true, string(out), nil
	default:
		return false, string(out), fmt.Errorf("go test -run %s %s: %w: %s", test, pkg, runErr, lastLines(string(out), 5))
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}
