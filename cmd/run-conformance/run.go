package main

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
	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/cluster/embedded"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kind"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kubeconfig"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/logs"
	"github.com/admission-conformance/admission-conformance/framework/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/rundir"
	"github.com/admission-conformance/admission-conformance/framework/runner"
)

func newRunCommand() *cobra.Command {
	o := defaultRunOptions()
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Boot a cluster and run the conformance specs against it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.load(cmd.Flags()); err != nil {
				return err
			}
			if o.InCluster {
				return runInCluster(cmd.OutOrStdout(), o) // incluster.go
			}
			err := runConformance(cmd.OutOrStdout(), o)
			if o.publishResults != "" {
				publishResults(cmd.ErrOrStderr(), o, err) // the in-cluster run's pod
			}
			return err
		},
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runConformance(out io.Writer, o runOptions) (err error) {
	if o.attach != "" {
		return runWorker(out, o) // a worker of a parallel run (worker.go)
	}
	claimed, _ := features.Parse(o.SupportedFeatures) // validated in load
	impl, _ := implementationOrNil(o.Implementation)  // validated in load

	// From here on SIGINT, SIGTERM and SIGHUP stop the run in order (see
	// interrupts); restoreStderr is set once stderr goes to components.log.
	var restoreStderr atomic.Pointer[func()]
	var specsStarted atomic.Bool
	sig := watchInterrupts(func(s os.Signal) {
		// The children (hollow kubelets, parallel workers) would outlive
		// this process for a moment, writing into its dirs.
		removed := removeOwnDirs()
		// Only now: components still running log to stderr until the exit.
		if restore := restoreStderr.Load(); restore != nil {
			(*restore)()
		}
		fmt.Fprintf(os.Stderr, "run-conformance: interrupted a third time (%s): exiting now without stopping the cluster in order; "+
			"removed its files (%d dir(s)); run 'run-conformance cleanup' for what another provider's cluster kept\n", signalName(s), len(removed))
		if specsStarted.Load() {
			os.Exit(exitFailed)
		}
		os.Exit(exitUsage)
	})
	defer sig.stop()
	sig.tell(out, o.Bounds.InterruptStop.Duration)

	// Runs killed with SIGKILL leave their embedded cluster's files: the
	// next run, of any provider, removes those whose process is gone.
	removeLeftovers(out)
	if o.rerunFailed != "" && o.rerunFilter == "" {
		fmt.Fprintf(out, "nothing failed in %s: nothing to rerun\n", o.rerunFailed)
		return nil
	}
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return usageError("cannot create report dir: %v", err)
	}
	componentLog, err := os.Create(filepath.Join(o.ReportDir, "components.log"))
	if err != nil {
		return usageError("cannot write into report dir: %v", err)
	}
	defer componentLog.Close()
	// run.log gets every line the run prints, plain, and at the end the
	// details of what did not pass; a terminal gets a live line instead of
	// a line per passing case.
	runLog, err := os.Create(filepath.Join(o.ReportDir, runLogName))
	if err != nil {
		return usageError("cannot write into report dir: %v", err)
	}
	defer runLog.Close()
	screen := terminal(out)
	out = io.MultiWriter(out, runLog)
	if screen != nil {
		// Over the live line, which the next redraw puts back below.
		sig.tell(overLiveLine{screen, runLog}, o.Bounds.InterruptStop.Duration)
	} else {
		sig.tell(out, o.Bounds.InterruptStop.Duration)
	}
	logs.RedirectComponents(componentLog)
	restore, err := logs.CaptureStderr(componentLog)
	if err != nil {
		return usageError("cannot redirect component output: %v", err)
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
			err = usageError("internal error (a bug in run-conformance) during %s: %v; the cluster was stopped and its files removed (stack in %s)",
				stage, r, componentLog.Name())
		}
	}()

	provider := newProvider(o, componentLog, logger)
	started := time.Now()
	fmt.Fprintf(out, "starting %s cluster...\n", provider.Name())
	env, err = harness.Boot(sig.ctx, harness.Config{Provider: provider, Bounds: o.Bounds, Claimed: claimed, Logger: logger,
		ReferenceInitializers: o.referenceInitializers(), RunID: o.runID})
	if s := sig.received(); s != nil {
		_ = closeEnv()
		return usageError("interrupted by %s during cluster start-up: start-up stopped and its files removed", signalName(s))
	}
	if err != nil {
		if bound := o.Bounds.ClusterStart.Duration; time.Since(started) >= bound {
			err = fmt.Errorf("%w; start-up ran out of its clusterStart bound, %s (raise it with --bound clusterStart=DURATION)", err, bound)
		}
		if provider.Name() == embedded.Name {
			return usageError("cluster set-up failed: %v (component output: %s)", err, componentLog.Name())
		}
		return usageError("cluster set-up failed: %v", err)
	}
	fmt.Fprintf(out, "cluster ready in %.1fs: %s, Kubernetes %s\n", time.Since(started).Seconds(), env.Cluster.Topology(), env.KubernetesVersion)
	if n, ok := env.Cluster.(interface{ StopStartingNodes() }); ok {
		// Nodes still starting beside the specs stop at the first signal,
		// however many there are, not once the specs have stopped.
		defer context.AfterFunc(sig.ctx, n.StopStartingNodes)()
	}

	runOpts := runner.Options{
		Selection:    runner.Selection{Suites: o.Suites, Profiles: o.profiles(), LabelFilter: runner.AndFilters(o.LabelFilter, o.rerunFilter), Focus: o.Focus, Skip: o.Skip},
		Progress:     out,
		GinkgoOutput: out,
		Version:      version,
		Plain:        true,
	}
	if screen != nil {
		runOpts.Progress, runOpts.GinkgoOutput = runLog, runLog
		runOpts.Live, runOpts.LiveWidth = screen, terminalWidth(screen)
	}
	stage = "the specs"
	specsStarted.Store(true)
	sig.runningSpecs(true)
	res, err := runSpecs(out, o, env, runOpts) // one after another, or in parallel (parallel.go)
	sig.runningSpecs(false)
	if err != nil {
		_ = closeEnv()
		if s := sig.received(); s != nil {
			return usageError("interrupted by %s while the nodes started: start-up stopped and its files removed", signalName(s))
		}
		return usageError("cluster set-up failed: %v", err)
	}

	if o.beforeStop != nil {
		stage = "reading the cluster before tear-down"
		o.beforeStop(env)
	}
	stage = "tear-down"
	stopping := time.Now()
	closeErr := closeEnv()
	fmt.Fprintf(out, "\ncluster stopped in %.1fs\n", time.Since(stopping).Seconds())
	stage = "report writing"
	reports := reportSet{dir: o.ReportDir, implementation: impl, keep: o.History, trendsFrom: o.History, runLog: runLog}
	rep, err := reports.write(res)
	if err != nil {
		return usageError("%v", err)
	}
	s := res.Summary
	notSelected := s.Total - selected(res)
	fmt.Fprintf(out, "%d passed, %d failed, %s%d skipped, %d not supported, %d not selected; %s\n",
		s.Passed, s.Failed, flakyCount(res), s.Skipped-notSelected, s.NotSupported, notSelected, profileSummary(rep))
	if c := res.Coverage; c != nil {
		fmt.Fprintf(out, "field coverage of the admission API: %d of %d paths in scope exercised (%.1f%%; of them CEL variables and libraries %d of %d), %d changed on a live configuration\n",
			c.Exercised, c.InScope, c.Percent, c.CELExercised, c.CELInScope, c.ChangedLive)
	}
	fmt.Fprintf(out, "reports in %s: %s\n", o.ReportDir, strings.Join(reportFiles, ", "))
	if closeErr != nil {
		return usageError("tear-down failed: %v", closeErr)
	}
	if sig := sig.received(); sig != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("interrupted by %s: the run stopped early, the cluster was stopped and its files removed; what ran is in %s",
			signalName(sig), filepath.Join(o.ReportDir, runLogName))}
	}
	if s.Failed > 0 || s.Flaky > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%s (details in %s and %s)", notPassedText(s),
			filepath.Join(o.ReportDir, runLogName), filepath.Join(o.ReportDir, htmlreport.FileName))}
	}
	if selected(res) == 0 {
		return usageError("no spec matched the selection (see 'run-conformance list')")
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

func newProvider(o runOptions, componentLog io.Writer, logger logr.Logger) cluster.Provider {
	if o.Provider == kubeconfig.Name {
		return kubeconfig.New(append([]kubeconfig.Option{kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context),
			kubeconfig.WithWebhookHost(o.WebhookHost), kubeconfig.WithPluginImage(o.PluginImage), kubeconfig.WithNodeAdmissionNodes(o.NodeAdmissionNodes...),
			kubeconfig.WithLogger(logger)},
			o.servedWebhooks()...)...)
	}
	if o.Provider == kind.Name {
		return o.kindProvider(logger)
	}
	delays, _ := o.etcdDelays() // validated in load
	return embedded.New(append([]embedded.Option{
		embedded.WithAPIServers(o.APIServers),
		embedded.WithAPIServerArgs(o.APIServerArgs...),
		embedded.WithNodes(o.nodeCount(), o.nodeSpec()),
		embedded.WithComponentLog(componentLog),
		embedded.WithLogger(logger),
		embedded.WithStartTimeout(o.Bounds.ClusterStart.Duration),
		embedded.WithPollInterval(o.Bounds.PollInterval.Duration),
	}, append(delays, o.backgroundNodes()...)...)...)
}

// progressLogger prints the harness's own progress messages (not the
// components') as plain lines.
func progressLogger(w io.Writer) logr.Logger {
	return funcr.New(func(prefix, args string) { fmt.Fprintln(w, "  "+prefix+" "+args) }, funcr.Options{Verbosity: 0})
}

// cliT stands in for *testing.T when Ginkgo runs outside go test.
type cliT struct{ failed bool }

func (t *cliT) Fail() { t.failed = true }
