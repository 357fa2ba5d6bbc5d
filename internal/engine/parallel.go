package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
	"github.com/admission-conformance/admission-conformance/internal/parallel/attached"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
	"github.com/admission-conformance/admission-conformance/internal/runner"
)

// A parallel run (--parallel N, N > 1) boots the cluster in this process as
// a serial run does, then runs each selected spec in a worker process of
// this binary (`run --options FILE` of the file it writes for the worker,
// workerconfig.go), up to N at a time, each worker
// with its own fake webhook server (so its journal holds its cases' calls
// only) and its own Ginkgo run. Specs that declare an isolation
// (spec.Isolation) run beside nothing that shares their state, or alone.
// This process merges the workers' results into the run's one results.json,
// in the order of a serial run, and prints one line per finished case.

// runSpecs runs the selected specs against env: in this process, one after
// another, with --parallel 1 or when at most one spec is selected; else in
// worker processes. A parallel run that cannot be set up falls back to a
// serial one (before anything ran), saying why. With --repeat every
// repetition runs in a worker (repeat.go), --parallel 1 one at a time. The
// error is the nodes' failing to start after the control plane
// (backgroundNodes), or workers that --repeat needs and that cannot be set
// up: a cluster that could not be set up. sig is the run's one owner of
// signals, which a parallel run asks for each one to pass on.
func runSpecs(out io.Writer, o runconfig.Config, env *harness.Env, runOpts runner.Options, planes []*plane, sig *interrupt.Watcher) (results.Results, error) {
	workers := o.Workers()
	if o.Repeat > 1 || (workers > 1 && o.SelectedSpecs() > 1) {
		p, err := newParallelRun(o, env, runOpts, planes, sig)
		if err == nil {
			defer p.close()
			return p.run(workers)
		}
		if o.Repeat > 1 {
			return results.Results{}, fmt.Errorf("--repeat runs every repetition in a worker process, and workers could not be set up: %w", err)
		}
		fmt.Fprintf(out, "parallel run not possible (%v): running the specs one after another\n", err)
	}
	if err := env.WaitForNodes(context.Background()); err != nil {
		return results.Results{}, err
	}
	return runner.Run(&cliT{}, env, runOpts), nil
}

// backgroundNodes lets a parallel run on the embedded cluster start specs
// that need no node while the nodes start and warm up (~11 s).
func backgroundNodes(o runconfig.Config) []embedded.Option {
	if o.Workers() <= 1 || o.SelectedSpecs() <= 1 || len(o.EtcdDelays) > 0 || o.NodeCount() == 0 {
		return nil
	}
	return []embedded.Option{embedded.WithNodesInBackground()}
}

// parallelRun is one parallel run's state in the parent.
type parallelRun struct {
	o       runconfig.Config
	env     *harness.Env
	runOpts runner.Options
	dir     string // private work dir: attach file, workers' reports and output
	attach  string
	// planes are the run's propagation planes (plane.go), if any.
	planes  []*plane
	router  *parallel.Router
	routing *parallel.Routing
	// sig owns the run's signals; run passes each on to the workers.
	sig *interrupt.Watcher

	mu       sync.Mutex
	outcomes []results.Spec
	failures map[string]string // unit -> why its worker gave no results
	// workers are the running workers, which get this process's signals
	// (forward).
	workers childproc.Group
}

func newParallelRun(o runconfig.Config, env *harness.Env, runOpts runner.Options, planes []*plane, sig *interrupt.Watcher) (_ *parallelRun, err error) {
	dir, err := rundir.Create("", rundir.ParallelPrefix)
	if err != nil {
		return nil, err
	}
	p := &parallelRun{o: o, env: env, runOpts: runOpts, dir: dir, attach: filepath.Join(dir, "attach.json"), planes: planes,
		sig: sig, failures: map[string]string{}}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	var routing *parallel.Routing
	if e, ok := env.Cluster.(cluster.WebhookEndpoint); ok {
		if routing, err = p.startRouter(e); err != nil {
			return nil, err
		}
	}
	if err := p.describe(routing); err != nil {
		return nil, err
	}
	return p, nil
}

// describe writes the attach file workers read when they start (again once
// the nodes are up, with them).
func (p *parallelRun) describe(routing *parallel.Routing) error {
	if routing != nil {
		p.routing = routing
	}
	a, err := attached.Describe(p.env, nil, p.routing)
	if err != nil {
		return err
	}
	if _, ok := p.env.Cluster.(cluster.Faults); ok {
		a.DeadNodes = p.deadNodesFile()
	}
	a.SharedDir = filepath.Join(p.dir, "shared")
	return parallel.WriteAttach(p.attach, a)
}

func (p *parallelRun) deadNodesFile() string { return filepath.Join(p.dir, "dead-nodes.json") }

// watchNodes passes on to the workers (through the dead nodes file) each
// node whose kubelet dies, which only this process sees (its children), so
// that the cases needing it fail at once, naming it, as in a serial run.
// It ends with ctx.
func (p *parallelRun) watchNodes(ctx context.Context) {
	f, ok := p.env.Cluster.(cluster.Faults)
	if !ok {
		return
	}
	t := time.NewTicker(p.env.Bounds.PollInterval.Duration)
	defer t.Stop()
	known := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			dead := f.DeadNodes()
			if len(dead) == known {
				continue
			}
			if err := parallel.WriteDeadNodes(p.deadNodesFile(), dead); err != nil {
				fmt.Fprintf(p.runOpts.Progress, "warning: cannot tell the workers which nodes died: %v\n", err)
				continue
			}
			known = len(dead)
		}
	}
}

// startRouter puts the router where the relay delivers webhook calls, in
// place of this process's own webhook server, which no spec uses here.
func (p *parallelRun) startRouter(e cluster.WebhookEndpoint) (*parallel.Routing, error) {
	listen, advertise := e.WebhookEndpoint()
	ca, err := pki.NewCA("admission-conformance-webhooks-" + p.env.RunID)
	if err != nil {
		return nil, err
	}
	key, err := ca.KeyPEM()
	if err != nil {
		return nil, err
	}
	routes := filepath.Join(p.dir, "routes")
	if err := os.Mkdir(routes, 0o700); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.env.Bounds.Cleanup.Duration)
	defer cancel()
	if err := p.env.Webhooks.Close(ctx); err != nil {
		return nil, fmt.Errorf("free the relay's address: %w", err)
	}
	var names []string
	if n, ok := p.env.Cluster.(cluster.WebhookNames); ok {
		names = n.WebhookNames()
	}
	if p.router, err = parallel.StartRouter(listen, advertise, names, ca, routes, p.env.Logger); err != nil {
		return nil, err
	}
	return &parallel.Routing{Advertise: advertise, CACert: ca.CertPEM(), CAKey: key, Dir: routes}, nil
}

func (p *parallelRun) close() {
	if p.router != nil {
		ctx, cancel := context.WithTimeout(context.Background(), p.env.Bounds.Cleanup.Duration)
		_ = p.router.Close(ctx)
		cancel()
	}
	if os.Getenv(traceEnv) != "" {
		return // kept for a look at the workers' output
	}
	_ = rundir.Remove(p.dir)
}

// run plans the cases, runs the workers and merges what they report. The
// error is the nodes' failing to start (then the workers are interrupted).
func (p *parallelRun) run(workers int) (results.Results, error) {
	startedAt := time.Now().UTC()
	plan := runner.Plan(&cliT{}, p.runOpts.Selection)
	if dup := duplicateCase(plan); dup != "" {
		return results.Results{}, fmt.Errorf("two cases are named %q: each case needs a name of its own (results, reports and compare key on them)", dup)
	}
	units := parallel.Units(plan, runner.Selected, p.previous(), runconfig.UsesNodes)
	if !p.env.ScopedInitializers() {
		parallel.HoldShared(units, spec.InitializersState)
	}
	parallel.AssignPlanes(units, runconfig.OnPropagationPlane, len(p.planes))
	used := 0
	for k, pl := range p.planes {
		if slices.ContainsFunc(units, func(u parallel.Unit) bool { return u.Plane == k+1 }) {
			used++
		} else {
			pl.beginStop() // the selection (--focus, --skip) left it nothing
		}
	}
	total, serial, onPlane := 0, 0, 0
	for i := range units {
		u := &units[i]
		total += len(u.Cases)
		if u.Plane > 0 {
			// On the plane every spec holds the windows of the kinds it
			// writes, so holding its own is what running alone gives it
			// on the cluster (spec.Isolation.Serial).
			u.Spec.Isolation.Serial = false
			onPlane++
		}
		if u.Serial() {
			serial++
		}
	}
	specs := len(units)
	if p.o.Repeat <= 1 {
		units = parallel.Batch(units, parallel.BatchTarget)
	}
	header := fmt.Sprintf("\n%d spec(s) in %d worker processes, up to %d at once (%d of them alone", specs, len(units), workers, serial)
	if onPlane > 0 {
		header += fmt.Sprintf(", %d measuring propagation on %d propagation plane(s)", onPlane, used)
	}
	header += ")"
	if p.o.Repeat > 1 {
		header += fmt.Sprintf("; each case %d times, the repetitions of a spec one after another", p.o.Repeat)
		if p.o.RepeatOnlyMeasured {
			header = strings.Replace(header, "each case", "each case that records a measurement", 1)
		} else {
			total *= p.o.Repeat
		}
	}
	if n, ok := p.env.Cluster.(cluster.NodesStarting); ok && !closed(n.NodesStarted()) {
		header += "; the nodes are starting: the specs that need them wait"
	}
	fmt.Fprint(p.runOpts.Progress, header)
	if p.runOpts.Live != nil {
		fmt.Fprint(p.runOpts.Live, header)
	}
	progress := runner.NewProgress(p.runOpts.Progress, p.runOpts.Live, p.runOpts.LiveWidth)
	progress.Begin(total)

	// Each signal the run's watcher counts goes on to the workers; the
	// first (even one before this point) stops the schedule.
	ctx, cancel := context.WithCancel(p.sig.Ctx)
	defer cancel()
	defer p.sig.OnSignal(func(s os.Signal) {
		p.forward(s)
		cancel()
	})()

	go p.watchNodes(ctx)

	// Nodes still starting (embedded, --parallel): the specs needing them
	// wait, the others go; once they are up, the attach file lists them.
	nodesReady := make(chan struct{})
	var nodesErr error
	go func() {
		defer close(nodesReady)
		waited := time.Now()
		if nodesErr = p.env.WaitForNodes(ctx); nodesErr == nil {
			nodesErr = p.describe(nil)
		}
		if nodesErr == nil && time.Since(waited) > time.Second {
			fmt.Fprintf(p.runOpts.Progress, "nodes ready after %.1fs more: %s\n", time.Since(waited).Seconds(), p.env.Cluster.Topology())
		}
		// (Nodes stopped by an interrupt, see StopStartingNodes, are no
		// failure to pass on: the workers get that interrupt already.)
		if nodesErr != nil && ctx.Err() == nil && !errors.Is(nodesErr, context.Canceled) {
			p.forward(os.Interrupt)
			cancel()
		}
	}()

	began := time.Now()
	// The plane's units run one per configuration kind at a time (each
	// holds its kind's quiet window there), beside the cluster's workers.
	notStarted := parallel.ScheduleWithPlanes(ctx, units, workers, len(quiet.Kinds), p.o.NodeSlots(), nodesReady, func(u parallel.Unit) {
		progress.Running(u.Name())
		start := time.Now()
		if p.o.Repeat > 1 {
			details := p.runRepeated(u, progress) // repeat.go: prints each repetition's lines
			p.trace(u, start.Sub(began), time.Since(start))
			progress.Stopped(u.Name())
			if details != "" && p.runOpts.GinkgoOutput != nil {
				fmt.Fprint(p.runOpts.GinkgoOutput, details)
			}
			return
		}
		outcomes, details := p.runUnitWhenReady(ctx, u)
		p.trace(u, start.Sub(began), time.Since(start))
		progress.Stopped(u.Name())
		for _, s := range outcomes {
			progress.Done(s)
		}
		if details != "" && p.runOpts.GinkgoOutput != nil {
			fmt.Fprint(p.runOpts.GinkgoOutput, details)
		}
	})
	progress.End()
	cancel()
	<-nodesReady
	if nodesErr != nil && !errors.Is(nodesErr, context.Canceled) {
		return results.Results{}, nodesErr
	}

	never := map[string]bool{}
	for _, i := range notStarted {
		for _, c := range units[i].Cases {
			never[c] = true
		}
	}
	res := runner.NewResults(p.env, p.runOpts) // now that the nodes are up
	res.StartedAt = startedAt
	res.Specs = parallel.Merge(plan, runner.Selected, p.outcomes, func(c results.Spec) results.Spec {
		c.Duration = 0
		if never[c.Name] {
			c.State, c.Message = results.Skipped, results.NotRun+"Interrupted by User"
			return c
		}
		c.State, c.Message = results.Failed, "no result from the worker process that ran "+c.ShortName+": "+p.failures[c.ShortName]
		return c
	})
	if res.Repeat = p.o.RepeatPolicy(); res.Repeat != nil {
		res.APIVersion = results.APIVersionRepeated
	}
	res.FinishedAt = time.Now().UTC()
	res.Summarize(fields.Cover)
	return res, nil
}

// traceEnv names a file where a parallel run notes when each unit ran (for
// tuning the schedule), and keeps its work dir with the workers' output.
const traceEnv = "ADMISSION_CONFORMANCE_PARALLEL_TRACE"

// trace notes when a unit ran (see traceEnv).
func (p *parallelRun) trace(u parallel.Unit, at, took time.Duration) {
	path := os.Getenv(traceEnv)
	if path == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%8.2f %8.2f %8.2f %s %s est=%.2f\n", at.Seconds(), (at + took).Seconds(), took.Seconds(), u.Name(), u.Spec.Isolation, u.Estimate.Seconds())
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// forward passes a signal on to every running worker, which stops as a
// serial run would on it (Ginkgo interrupts the case and runs its cleanup),
// and keeps workers from starting after it.
func (p *parallelRun) forward(sig os.Signal) {
	p.workers.Signal(sig)
}

// previous are the results of the last run into the same report dir (or
// the newest of the history dir), for the specs' durations.
func (p *parallelRun) previous() *results.Results {
	for _, path := range []string{filepath.Join(p.o.ReportDir, results.FileName), p.o.History} {
		if path == "" {
			continue
		}
		if res, _, err := history.Resolve(path); err == nil {
			return &res
		}
	}
	return nil
}

// duplicateCase is the key (results.Spec.Key) of the first case of plan
// another case has too, or "".
func duplicateCase(plan []results.Spec) string {
	seen := map[string]bool{}
	for _, s := range plan {
		key := s.Key()
		if seen[key] {
			return key
		}
		seen[key] = true
	}
	return ""
}
