package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
	"github.com/admission-conformance/admission-conformance/internal/parallel/attached"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
	"github.com/admission-conformance/admission-conformance/internal/runner"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// runAsWorker is a worker of a parallel run (parallel.go): `run --options
// FILE` of the file its parent wrote (workerConfig), whose worker role it
// has.
// It runs its selection (one spec's cases) against the parent's cluster
// with a fake webhook server of its own, prints progress and Ginkgo's
// failure details as a serial run would, and writes results.json into
// --report-dir for the parent to merge. It never stops the cluster nor
// sweeps the run's objects: its cases' cleanups remove what they made, and
// the parent sweeps at the end.
func runAsWorker(out io.Writer, o runconfig.Config) error {
	role := o.Worker()
	a, err := parallel.ReadAttach(role.Attach)
	if err != nil {
		return exitcode.Usagef("worker: %v", err)
	}
	if err := os.MkdirAll(o.ReportDir, 0o700); err != nil {
		return exitcode.Usagef("cannot create report dir: %v", err)
	}
	go endWithParent(a.Bounds.Cleanup.Duration)
	began := time.Now()
	env, err := attached.Env(a, progressLogger(out), fakewebhook.WithInjectedErrors(testhook.WebhookErrors(role.Repetition)))
	if err != nil {
		return exitcode.Usagef("worker: %v", err)
	}
	env.NodeSlot = role.NodeSlot
	ready := time.Now()
	res := runner.Run(&cliT{}, env, runner.Options{
		Selection:    runner.Selection{LabelFilter: o.LabelFilter, Focus: o.Focus, Skip: o.Skip},
		Progress:     out,
		GinkgoOutput: out,
		Version:      o.Version,
		Plain:        true,
	})
	ran := time.Now()
	closeErr := env.Close(context.Background())
	if os.Getenv(traceEnv) != "" {
		fmt.Fprintf(os.Stderr, "\nworker: set up in %s, ran in %s, closed in %s\n", ready.Sub(began).Round(time.Millisecond),
			ran.Sub(ready).Round(time.Millisecond), time.Since(ran).Round(time.Millisecond))
	}
	if _, err := results.Write(o.ReportDir, res); err != nil {
		return exitcode.Usagef("cannot write results: %v", err)
	}
	if closeErr != nil {
		return exitcode.Usagef("worker tear-down: %v", closeErr)
	}
	if res.Summary.Failed > 0 {
		return exitcode.Failedf("%d spec case(s) failed", res.Summary.Failed)
	}
	return nil
}

// endWithParent interrupts the worker when its parent dies (its stdin, a
// pipe the parent never writes, reaches EOF): Ginkgo runs the case's
// cleanup, as after a Ctrl-C. If that takes longer than grace, the worker
// exits.
func endWithParent(grace time.Duration) {
	childproc.UntilParentGone()
	_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	time.Sleep(grace)
	fmt.Fprintln(os.Stderr, "run-conformance worker: the parent is gone and the cleanup did not finish: exiting")
	os.Exit(exitcode.Usage)
}
