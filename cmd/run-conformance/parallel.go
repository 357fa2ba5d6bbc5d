package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/pflag"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/cluster/embedded"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/parallel"
	"github.com/admission-conformance/admission-conformance/framework/parallel/attached"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/framework/report/history"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/rundir"
	"github.com/admission-conformance/admission-conformance/framework/runner"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// A parallel run (--parallel N, N > 1) boots the cluster in this process as
// a serial run does, then runs each selected spec in a worker process of
// this binary (`run --attach FILE`, hidden), up to N at a time, each worker
// with its own fake webhook server (so its journal holds its cases' calls
// only) and its own Ginkgo run. Specs that declare an isolation
// (spec.Isolation) run beside nothing that shares their state, or alone.
// This process merges the workers' results into the run's one results.json,
// in the order of a serial run, and prints one line per finished case.

// addParallelFlags binds --parallel and the workers' hidden --attach.
func (o *runOptions) addParallelFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.Parallel, "parallel", o.Parallel, fmt.Sprintf("how many specs run at once against the one cluster, each in a worker process; "+
		"1 runs them one after another in this process; 0 (default) picks %d for this machine (%d CPUs: %s). "+
		"Specs whose isolation says so (see 'list') run beside no spec sharing their state, or alone", defaultWorkers(), runtime.NumCPU(), workersRule))
	fs.StringVar(&o.attach, "attach", o.attach, "run as a worker of a parallel run against the cluster this attach file describes")
	_ = fs.MarkHidden("attach")
}

// workersRule says how defaultWorkers picks. Specs mostly wait (for
// timeouts, propagation, kubelets), so more workers than CPUs pay off.
const workersRule = "4 per CPU, at least 4, at most 8"

func defaultWorkers() int { return min(8, max(4, 4*runtime.NumCPU())) }

// workers is how many specs run at once.
func (o *runOptions) workers() int {
	if o.Parallel > 0 {
		return o.Parallel
	}
	return defaultWorkers()
}

func (o *runOptions) validateParallel() error {
	if o.Parallel < 0 {
		return usageError("--parallel must be 0 (chosen for this machine) or more, got %d", o.Parallel)
	}
	return nil
}

// runSpecs runs the selected specs against env: in this process, one after
// another, with --parallel 1 or when at most one spec is selected; else in
// worker processes. A parallel run that cannot be set up falls back to a
// serial one (before anything ran), saying why. With --repeat every
// repetition runs in a worker (repeat.go), --parallel 1 one at a time. The
// error is the nodes' failing to start after the control plane
// (backgroundNodes), or workers that --repeat needs and that cannot be set
// up: a cluster that could not be set up.
func runSpecs(out io.Writer, o runOptions, env *harness.Env, runOpts runner.Options) (results.Results, error) {
	workers := o.workers()
	if o.Repeat > 1 || (workers > 1 && o.selectedSpecs() > 1) {
		p, err := newParallelRun(o, env, runOpts)
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
func (o *runOptions) backgroundNodes() []embedded.Option {
	if o.workers() <= 1 || o.selectedSpecs() <= 1 || len(o.EtcdDelays) > 0 || o.nodeCount() == 0 {
		return nil
	}
	return []embedded.Option{embedded.WithNodesInBackground()}
}

// selectedSpecs counts the specs the selection (suites, profiles, label
// filters, --rerun-failed) can include; focus and skip may only narrow it.
// A label filter that does not parse counts as including everything, as in
// mayRun.
func (o *runOptions) selectedSpecs() int {
	matches := func([]string) bool { return true }
	if filter := runner.AndFilters(o.LabelFilter, o.rerunFilter); filter != "" {
		parsed, err := types.ParseLabelFilter(filter)
		if err != nil {
			return len(spec.All())
		}
		matches = parsed
	}
	n := 0
	for _, s := range spec.All() {
		if (len(o.Suites) > 0 && !slices.Contains(o.Suites, s.Suite)) ||
			(len(o.Profiles) > 0 && !slices.Contains(o.Profiles, string(s.Profile))) || !matches(s.Labels()) {
			continue
		}
		n++
	}
	return n
}

// parallelRun is one parallel run's state in the parent.
type parallelRun struct {
	o       runOptions
	env     *harness.Env
	runOpts runner.Options
	dir     string // private work dir: attach file, workers' reports and output
	attach  string
	router  *parallel.Router
	relay   *parallel.Relay

	mu       sync.Mutex
	outcomes []results.Spec
	failures map[string]string // unit -> why its worker gave no results
	// signal is the signal to forward to workers (0: none yet).
	signal   os.Signal
	children map[*exec.Cmd]bool
}

func newParallelRun(o runOptions, env *harness.Env, runOpts runner.Options) (_ *parallelRun, err error) {
	dir, err := rundir.Create("", rundir.ParallelPrefix)
	if err != nil {
		return nil, err
	}
	p := &parallelRun{o: o, env: env, runOpts: runOpts, dir: dir, attach: filepath.Join(dir, "attach.json"),
		failures: map[string]string{}, children: map[*exec.Cmd]bool{}}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	var relay *parallel.Relay
	if e, ok := env.Cluster.(cluster.WebhookEndpoint); ok {
		if relay, err = p.startRouter(e); err != nil {
			return nil, err
		}
	}
	if err := p.describe(relay); err != nil {
		return nil, err
	}
	return p, nil
}

// describe writes the attach file workers read when they start (again once
// the nodes are up, with them).
func (p *parallelRun) describe(relay *parallel.Relay) error {
	if relay != nil {
		p.relay = relay
	}
	a, err := attached.Describe(p.env, nil, p.relay)
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
func (p *parallelRun) startRouter(e cluster.WebhookEndpoint) (*parallel.Relay, error) {
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
	return &parallel.Relay{Advertise: advertise, CACert: ca.CertPEM(), CAKey: key, Dir: routes}, nil
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
	_ = os.RemoveAll(p.dir)
}

// run plans the cases, runs the workers and merges what they report. The
// error is the nodes' failing to start (then the workers are interrupted).
func (p *parallelRun) run(workers int) (results.Results, error) {
	startedAt := time.Now().UTC()
	plan := runner.Plan(&cliT{}, p.runOpts.Selection)
	units := parallel.Units(plan, runner.Selected, p.previous(), usesNodes)
	if !p.env.ScopedInitializers() {
		parallel.HoldShared(units, spec.InitializersState)
	}
	total, serial := 0, 0
	for _, u := range units {
		total += len(u.Cases)
		if u.Serial() {
			serial++
		}
	}
	header := fmt.Sprintf("\n%d spec(s) in up to %d worker processes at once (%d of them alone)", len(units), workers, serial)
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

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	stopForwarding := make(chan struct{})
	defer close(stopForwarding)
	go func() {
		for {
			select {
			case sig := <-signals:
				p.forward(sig)
				cancel()
			case <-stopForwarding:
				return
			}
		}
	}()

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
	notStarted := parallel.Schedule(ctx, units, workers, nodesReady, func(u parallel.Unit) {
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
		outcomes, details := p.runUnit(u)
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
	if res.Repeat = p.o.repeatPolicy(); res.Repeat != nil {
		res.APIVersion = results.APIVersionRepeated
	}
	res.FinishedAt = time.Now().UTC()
	res.Summarize()
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
// serial run would on it (Ginkgo interrupts the case and runs its cleanup).
func (p *parallelRun) forward(sig os.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.signal = sig
	for cmd := range p.children {
		_ = cmd.Process.Signal(sig)
	}
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

// runUnit runs one unit's worker and returns the cases it reported, and,
// when a case did not pass, the worker's own account of it (Ginkgo's
// failure details) for the run's output.
func (p *parallelRun) runUnit(u parallel.Unit) ([]results.Spec, string) {
	outcomes, details, _ := p.runWorker(u, 0, nil)
	p.mu.Lock()
	if _, failed := p.failures[u.Spec.ShortName]; !failed {
		p.outcomes = append(p.outcomes, outcomes...) // else Merge reports them
	}
	p.mu.Unlock()
	return outcomes, details
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
	exe, err := os.Executable()
	if err != nil {
		return p.failedToStart(u, err.Error())
	}
	args := []string{"run", "--attach", p.attach, "--report-dir", dir, "--label-filter", "spec:" + u.Spec.ShortName}
	focus := p.runOpts.Selection.Focus
	if only != nil {
		// Cases the first repetition ran, so the selection's focus
		// already holds for them: name each exactly instead.
		focus = nil
		for _, c := range only {
			focus = append(focus, exactCase(c))
		}
	}
	for _, f := range focus {
		args = append(args, "--focus", f)
	}
	for _, s := range p.runOpts.Selection.Skip {
		args = append(args, "--skip", s)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = repetitionEnv(rep)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group: a Ctrl-C on the terminal reaches this process
	// only, which passes it on once (forward). The stdin pipe ends the
	// worker should this process die.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return p.failedToStart(u, err.Error())
	}
	defer stdin.Close()
	p.mu.Lock()
	if p.signal != nil {
		p.mu.Unlock()
		return nil, "", false // interrupted before it started: reported as not run
	}
	if err := cmd.Start(); err != nil {
		p.mu.Unlock()
		return p.failedToStart(u, err.Error())
	}
	p.children[cmd] = true
	p.mu.Unlock()
	waitErr := cmd.Wait()
	p.mu.Lock()
	delete(p.children, cmd)
	p.mu.Unlock()

	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		why := fmt.Sprintf("%v (exit: %v); last output: %s", err, waitErr, tailOf(logPath, 8))
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
	p.failures[u.Spec.ShortName] = why
	p.mu.Unlock()
	var out []results.Spec
	for _, c := range u.Cases {
		s := results.Spec{Suite: u.Spec.Suite, ShortName: u.Spec.ShortName, Name: c, State: results.Failed,
			Profile: string(u.Spec.Profile), Seed: u.Spec.Seed,
			Message: "no result from the worker process that ran " + u.Spec.ShortName + ": " + why}
		for _, f := range u.Spec.Features {
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

// tailOf is the last n lines of a file, on one line.
func tailOf(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(none)"
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 || lines[0] == "" {
		return "(none)"
	}
	return strings.Join(lines, " | ")
}
