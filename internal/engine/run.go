// Package engine runs the conformance specs: the run lifecycle of `run`
// and `certify` once their configuration (internal/runconfig) is loaded
// and valid. A run boots its cluster, runs the specs in this process one
// after another or in worker processes (parallel.go, --repeat in
// repeat.go), stops the cluster and writes the reports, with SIGINT,
// SIGTERM and SIGHUP held in every phase (internal/engine/interrupt). An
// in-cluster run's client and pod are internal/engine/incluster, a matrix
// of runs internal/engine/matrixrun. Errors are *exitcode.Error: the exit code
// with one line.
package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/engine/incluster"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/engineparts"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/logs"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	"github.com/admission-conformance/admission-conformance/internal/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/internal/reports"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
	"github.com/admission-conformance/admission-conformance/internal/runner"
)

// Run is `run` once its configuration is loaded and valid: an in-cluster
// run's client (--in-cluster), a parallel run's worker (its worker role), or a
// run in this process; an in-cluster run's pod publishes its reports at
// the end.
func Run(out, errOut io.Writer, o runconfig.Config) error {
	if o.InCluster {
		return incluster.Run(out, o, progressLogger(out))
	}
	err := runHere(out, o)
	if o.Pod() != nil {
		incluster.Publish(errOut, o, err) // the in-cluster run's pod
	}
	return err
}

// runHere runs the specs from this process: it boots the cluster, runs the
// specs (runSpecs), stops the cluster and writes the reports.
func runHere(out io.Writer, o runconfig.Config) (err error) {
	if o.Worker() != nil {
		return runAsWorker(out, o) // a worker of a parallel run (worker.go)
	}
	if o.Plane() != nil {
		return servePlane(out, o) // a parallel run's propagation plane (plane.go)
	}
	claimed, _ := features.Parse(o.SupportedFeatures)          // validated in load
	impl, _ := runconfig.ImplementationOrNil(o.Implementation) // validated in load

	// From here on SIGINT, SIGTERM and SIGHUP stop the run in order (see
	// interrupts); restoreStderr is set once stderr goes to components.log.
	var restoreStderr atomic.Pointer[func()]
	var specsStarted atomic.Bool
	var propagationPlanes atomic.Pointer[[]*plane]
	sig := interrupt.Watch(func(s os.Signal) {
		// The children (hollow kubelets, parallel workers) would outlive
		// this process for a moment, writing into its dirs.
		if planes := propagationPlanes.Load(); planes != nil {
			for _, p := range *planes {
				p.kill()
			}
		}
		removed := interrupt.RemoveOwnDirs()
		// Only now: components still running log to stderr until the exit.
		if restore := restoreStderr.Load(); restore != nil {
			(*restore)()
		}
		fmt.Fprintf(os.Stderr, "run-conformance: interrupted a third time (%s): exiting now without stopping the cluster in order; "+
			"removed its files (%d dir(s)); run 'run-conformance cleanup' for what another provider's cluster kept\n", interrupt.SignalName(s), len(removed))
		if specsStarted.Load() {
			os.Exit(exitcode.Failed)
		}
		os.Exit(exitcode.Usage)
	})
	defer sig.Stop()
	sig.Tell(out, o.Bounds.InterruptStop.Duration)

	// Runs killed with SIGKILL leave their embedded cluster's files: the
	// next run, of any provider, removes those whose process is gone.
	removeLeftovers(out)
	if o.RerunFailed != "" && o.RerunFilter == "" {
		fmt.Fprintf(out, "nothing failed in %s: nothing to rerun\n", o.RerunFailed)
		return nil
	}
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return exitcode.Usagef("cannot create report dir: %v", err)
	}
	componentLog, err := os.Create(filepath.Join(o.ReportDir, "components.log"))
	if err != nil {
		return exitcode.Usagef("cannot write into report dir: %v", err)
	}
	defer componentLog.Close()
	// run.log gets every line the run prints, plain, and at the end the
	// details of what did not pass; a terminal gets a live line instead of
	// a line per passing case.
	runLog, err := os.Create(filepath.Join(o.ReportDir, reports.RunLogName))
	if err != nil {
		return exitcode.Usagef("cannot write into report dir: %v", err)
	}
	defer runLog.Close()
	screen := terminal(out)
	out = io.MultiWriter(out, runLog)
	if screen != nil {
		// Over the live line, which the next redraw puts back below.
		sig.Tell(overLiveLine{screen, runLog}, o.Bounds.InterruptStop.Duration)
	} else {
		sig.Tell(out, o.Bounds.InterruptStop.Duration)
	}
	logs.RedirectComponents(componentLog)
	restore, err := logs.CaptureStderr(componentLog)
	if err != nil {
		return exitcode.Usagef("cannot redirect component output: %v", err)
	}
	var restoreOnce sync.Once
	restoreOnceFn := func() { restoreOnce.Do(restore) }
	restoreStderr.Store(&restoreOnceFn)
	defer restoreOnceFn()
	logger := progressLogger(out)

	// A panic outside the specs (Ginkgo catches theirs) is a bug in the
	// harness: it becomes an error naming what the run was doing, after the
	// cluster is stopped and its files removed.
	var env *harness.Env
	stage := "cluster start-up"
	closeEnv := func() error {
		e := env
		env = nil
		if e == nil {
			return nil
		}
		defer func() {
			if r := recover(); r != nil {
				// Stop the cluster all the same (a second Stop does
				// nothing), then report the panic.
				if e.Cluster != nil {
					_ = e.Cluster.Stop(context.Background())
				}
				panic(r)
			}
		}()
		return e.Close(context.Background())
	}
	defer func() {
		r := recover()
		if r != nil {
			fmt.Fprintf(componentLog, "run-conformance: panic during %s: %v\n%s", stage, r, debug.Stack())
		}
		if env != nil {
			stage = "tear-down after a panic"
			func() {
				defer func() { _ = recover() }()
				_ = closeEnv()
			}()
		}
		if r != nil {
			err = exitcode.Usagef("internal error (a bug in run-conformance) during %s: %v; the cluster was stopped and its files removed (stack in %s)",
				stage, r, componentLog.Name())
		}
	}()

	provider := newProvider(o, componentLog, logger)
	started := time.Now()
	fmt.Fprintf(out, "starting %s cluster...\n", provider.Name())
	// The propagation planes boot beside the cluster, at the same time.
	var planes []*plane
	if o.PropagationPlanes() > 0 {
		if planes, err = startPlanes(o); err != nil {
			fmt.Fprintf(out, "no propagation plane (%v): the specs measuring propagation run on the one control plane\n", err)
		}
		propagationPlanes.Store(&planes)
	}
	defer func() {
		if stopErr := stopPlanes(planes); stopErr != nil {
			fmt.Fprintf(out, "warning: %v\n", stopErr)
		}
	}()
	env, err = harness.Boot(sig.Ctx, harness.Config{Provider: provider, Bounds: o.Bounds, Claimed: claimed, Logger: logger,
		ReferenceInitializers: o.Initializers(), RunID: o.RunID(), Engine: engineparts.Run()})
	if s := sig.Received(); s != nil {
		_ = closeEnv()
		return exitcode.Usagef("interrupted by %s during cluster start-up: start-up stopped and its files removed", interrupt.SignalName(s))
	}
	if err != nil {
		if bound := o.Bounds.ClusterStart.Duration; time.Since(started) >= bound {
			err = fmt.Errorf("%w; start-up ran out of its clusterStart bound, %s (raise it with --bound clusterStart=DURATION)", err, bound)
		}
		if provider.Name() == embedded.Name {
			return exitcode.Usagef("cluster set-up failed: %v (component output: %s)", err, componentLog.Name())
		}
		return exitcode.Usagef("cluster set-up failed: %v", err)
	}
	fmt.Fprintf(out, "cluster ready in %.1fs: %s, Kubernetes %s\n", time.Since(started).Seconds(), env.Cluster.Topology(), env.KubernetesVersion)
	if n, ok := env.Cluster.(interface{ StopStartingNodes() }); ok {
		// Nodes still starting beside the specs stop at the first signal,
		// however many there are, not once the specs have stopped.
		defer context.AfterFunc(sig.Ctx, n.StopStartingNodes)()
	}

	runOpts := runner.Options{
		Selection:    runner.Selection{Suites: o.Suites, Profiles: o.SelectedProfiles(), LabelFilter: runner.AndFilters(o.LabelFilter, o.RerunFilter), Focus: o.Focus, Skip: o.Skip},
		Progress:     out,
		GinkgoOutput: out,
		Version:      o.Version,
		Plain:        true,
	}
	if screen != nil {
		runOpts.Progress, runOpts.GinkgoOutput = runLog, runLog
		runOpts.Live, runOpts.LiveWidth = screen, terminalWidth(screen)
	}
	stage = "the specs"
	specsStarted.Store(true)
	sig.RunningSpecs(true)
	res, err := runSpecs(out, o, env, runOpts, planes, sig) // one after another, or in parallel (parallel.go)
	sig.RunningSpecs(false)
	for _, p := range planes {
		p.beginStop() // beside the cluster's tear-down
	}
	if err != nil {
		_ = closeEnv()
		if s := sig.Received(); s != nil {
			return exitcode.Usagef("interrupted by %s while the nodes started: start-up stopped and its files removed", interrupt.SignalName(s))
		}
		return exitcode.Usagef("cluster set-up failed: %v", err)
	}

	if o.BeforeStop != nil {
		stage = "reading the cluster before tear-down"
		o.BeforeStop(env)
	}
	stage = "tear-down"
	stopping := time.Now()
	closeErr := closeEnv()
	fmt.Fprintf(out, "\ncluster stopped in %.1fs\n", time.Since(stopping).Seconds())
	stage = "report writing"
	rs := reports.Set{Dir: o.ReportDir, Implementation: impl, Keep: o.History, TrendsFrom: o.History, RunLog: runLog}
	rep, err := rs.Write(res)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	s := res.Summary
	notSelected := s.Total - selected(res)
	fmt.Fprintf(out, "%d passed, %d failed, %s%d skipped, %d not supported, %d not selected; %s\n",
		s.Passed, s.Failed, flakyCount(res), s.Skipped-notSelected, s.NotSupported, notSelected, reports.ProfileSummary(rep))
	if c := res.Coverage; c != nil {
		fmt.Fprintf(out, "field coverage of the admission API: %d of %d paths in scope exercised (%.1f%%; of them CEL variables and libraries %d of %d), %d changed on a live configuration\n",
			c.Exercised, c.InScope, c.Percent, c.CELExercised, c.CELInScope, c.ChangedLive)
	}
	fmt.Fprintf(out, "reports in %s: %s\n", o.ReportDir, strings.Join(reports.Files, ", "))
	if closeErr != nil {
		return exitcode.Usagef("tear-down failed: %v", closeErr)
	}
	if sig := sig.Received(); sig != nil {
		return exitcode.Failedf("interrupted by %s: the run stopped early, the cluster was stopped and its files removed; what ran is in %s",
			interrupt.SignalName(sig), filepath.Join(o.ReportDir, reports.RunLogName))
	}
	if s.Failed > 0 || s.Flaky > 0 {
		return exitcode.Failedf("%s (details in %s and %s)", notPassedText(s),
			filepath.Join(o.ReportDir, reports.RunLogName), filepath.Join(o.ReportDir, htmlreport.FileName))
	}
	if selected(res) == 0 {
		return exitcode.Usagef("no spec matched the selection (see 'run-conformance list')")
	}
	return nil
}

// removeLeftovers removes the dirs (embedded clusters, parallel workers,
// kind, image builds) that runs killed with SIGKILL left in the temp dir,
// saying what it removed.
func removeLeftovers(out io.Writer) {
	removed, err := rundir.RemoveLeftovers("")
	for _, l := range removed {
		fmt.Fprintf(out, "removed the files of a killed run: %s\n", l)
	}
	if err != nil {
		fmt.Fprintf(out, "warning: %v\n", err)
	}
}

// selected counts the cases the selection let run (the results also list
// the ones it left out).
func selected(res results.Results) int {
	n := 0
	for _, s := range res.Specs {
		if s.Message != results.NotSelected {
			n++
		}
	}
	return n
}

func newProvider(o runconfig.Config, componentLog io.Writer, logger logr.Logger) cluster.Provider {
	if o.Provider == kubeconfig.Name {
		return kubeconfig.New(append([]kubeconfig.Option{kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context),
			kubeconfig.WithWebhookHost(o.WebhookHost), kubeconfig.WithPluginImage(o.PluginImage), kubeconfig.WithNodeAdmissionNodes(o.NodeAdmissionNodes...),
			kubeconfig.WithLogger(logger), kubeconfig.WithSpecs(o.MaySelect())},
			o.ServedWebhooks()...)...)
	}
	if o.Provider == kind.Name {
		return o.KindProvider(logger)
	}
	delays, _ := o.EtcdDelayOptions() // validated in load
	return embedded.New(append([]embedded.Option{
		embedded.WithAPIServers(o.APIServers),
		embedded.WithAPIServerArgs(o.APIServerArgs...),
		embedded.WithNodes(o.NodeCount(), o.NodeSpec()),
		embedded.WithComponentLog(componentLog),
		embedded.WithLogger(logger),
		embedded.WithStartTimeout(o.Bounds.ClusterStart.Duration),
		embedded.WithPollInterval(o.Bounds.PollInterval.Duration),
	}, append(delays, backgroundNodes(o)...)...)...)
}

// progressLogger prints the harness's own progress messages (not the
// components') as plain lines.
func progressLogger(w io.Writer) logr.Logger {
	return funcr.New(func(prefix, args string) { fmt.Fprintln(w, "  "+prefix+" "+args) }, funcr.Options{Verbosity: 0})
}

// cliT stands in for *testing.T when Ginkgo runs outside go test.
type cliT struct{ failed bool }

func (t *cliT) Fail() { t.failed = true }
