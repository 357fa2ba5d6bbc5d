package incluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/reports"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// follow waits for the pod, streams its output, fetches its reports and
// deletes the run; the error carries the run's exit code.
func (c *runClient) follow(sig *interrupt.Watcher, r *clusterrun.Run) error {
	o, ns := c.o, r.NamespaceName()
	startCtx, cancel := context.WithTimeout(sig.Ctx, o.Bounds.ClusterStart.Duration)
	pod, err := clusterrun.WaitStarted(startCtx, c.client, ns, c.logger)
	cancel()
	if s := sig.Received(); s != nil {
		_ = c.delete(r, false)
		return exitcode.Usagef("interrupted by %s before the run's pod started: removed what the run created", interrupt.SignalName(s))
	}
	if err != nil {
		_ = c.delete(r, false)
		return exitcode.Usagef("in-cluster run did not start: %v (removed what it created)", exitcode.OneLine(err.Error()))
	}
	fmt.Fprintf(c.out, "pod %s/%s runs; its output follows\n", ns, pod)
	f := &clusterrun.Follower{Client: c.client, Namespace: ns, Pod: pod, Out: c.out, Lost: lostAfter}
	err = f.Follow(sig.Ctx)
	interrupted := sig.Received()
	if interrupted != nil && errors.Is(err, context.Canceled) {
		fmt.Fprintf(c.out, "interrupted by %s: stopping the run in the cluster (its pod stops its specs in order and writes its reports; interrupt again to stop waiting)\n",
			interrupt.SignalName(interrupted))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_ = clusterrun.Stop(ctx, c.client, ns)
		cancel()
		wait, cancel := context.WithTimeout(sig.Again, o.Bounds.Cleanup.Duration+clusterrun.DefaultGracePeriod+30*time.Second)
		err = f.Follow(wait)
		cancel()
	}
	var lost *clusterrun.LostError
	if errors.As(err, &lost) {
		if derr := c.delete(r, false); derr != nil {
			return exitcode.Usagef("%v; the run goes on in the cluster: fetch its results with 'run-conformance results %s --run %s', or remove it with 'run-conformance cleanup %s --run %s'",
				lost, c.where, r.ID, c.where, r.ID)
		}
		return exitcode.Usagef("%v; removed the run", lost)
	}
	fetchCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	outcome, ferr := clusterrun.Fetch(fetchCtx, c.client, ns, o.ReportDir)
	cancel()
	if ferr != nil && !errors.Is(ferr, clusterrun.ErrNoResults) {
		return exitcode.Usagef("cannot fetch the run's reports (%v): the run is left in the cluster; fetch them with 'run-conformance results %s --run %s'",
			exitcode.OneLine(ferr.Error()), c.where, r.ID)
	}
	var code int
	var reason string
	if ferr != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code, reason, _ = clusterrun.ExitCode(ctx, c.client, ns, pod)
		cancel()
	}
	derr := c.delete(r, true)
	if ferr != nil {
		if interrupted != nil {
			return exitcode.Failedf("interrupted by %s: the run's pod published no reports; what it printed is above", interrupt.SignalName(interrupted))
		}
		return exitcode.Usagef("the run's pod ended (exit code %d %s) without publishing its reports; what it printed is above", code, reason)
	}
	return c.finish(outcome, derr, interrupted)
}

// delete removes the run (its pod, what its specs left, its objects),
// saying so when loud.
func (c *runClient) delete(r *clusterrun.Run, loud bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.o.Bounds.Cleanup.Duration+clusterrun.DefaultGracePeriod)
	defer cancel()
	started := time.Now()
	sweep := func(ctx context.Context, id string) error { return harness.Sweep(ctx, c.cfg, id) }
	if !r.OwnsNamespace() {
		sweep = c.accountSweep(sweep)
	}
	err := clusterrun.Delete(ctx, c.client, r.ID, r.NamespaceName(), sweep, logr.Discard())
	if err == nil && loud {
		fmt.Fprintf(c.out, "removed the in-cluster run %s in %.1fs\n", r.ID, time.Since(started).Seconds())
	}
	return err
}

// finish reports where the reports are, keeps the run in --history and
// turns the run's outcome into this command's.
func (c *runClient) finish(outcome clusterrun.Outcome, deleteErr error, interrupted os.Signal) error {
	o := c.o
	fmt.Fprintf(c.out, "reports in %s: %s\n", o.ReportDir, strings.Join(outcome.Files, ", "))
	if o.History != "" {
		impl, _ := runconfig.ImplementationOrNil(o.Implementation)
		if err := reports.KeepInHistory(o.ReportDir, o.History, impl); err != nil {
			return exitcode.Usagef("%v", err)
		}
	}
	// The pod's message names its own report dir.
	message := strings.ReplaceAll(outcome.Message, clusterrun.ReportDir+"/", strings.TrimSuffix(o.ReportDir, "/")+"/")
	if deleteErr != nil {
		return exitcode.Usagef("tear-down failed: %v (run 'run-conformance cleanup %s')", exitcode.OneLine(deleteErr.Error()), c.where)
	}
	switch {
	case outcome.ExitCode == exitcode.Passed && interrupted == nil:
		return nil
	case interrupted != nil:
		code := exitcode.Failed
		if outcome.ExitCode == exitcode.Usage {
			code = exitcode.Usage
		}
		return &exitcode.Error{Code: code, Err: fmt.Errorf("interrupted by %s: the run stopped early and was removed from the cluster; what ran is in %s",
			interrupt.SignalName(interrupted), filepath.Join(o.ReportDir, reports.RunLogName))}
	case outcome.ExitCode == exitcode.Failed:
		return &exitcode.Error{Code: exitcode.Failed, Err: errors.New(message)}
	default:
		if message == "" {
			message = fmt.Sprintf("the run in the cluster ended with exit code %d", outcome.ExitCode)
		}
		return exitcode.Usagef("%s", message)
	}
}
