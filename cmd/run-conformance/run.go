package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
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
			return runConformance(cmd.OutOrStdout(), o)
		},
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func runConformance(out io.Writer, o runOptions) error {
	claimed, _ := features.Parse(o.SupportedFeatures) // validated in load
	impl, _ := implementationOrNil(o.Implementation)  // validated in load
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
	logs.RedirectComponents(componentLog)
	restoreStderr, err := logs.CaptureStderr(componentLog)
	if err != nil {
		return usageError("cannot redirect component output: %v", err)
	}
	defer restoreStderr()
	logger := progressLogger(out)

	provider := newProvider(o, componentLog, logger)
	// An interrupt during start-up cancels it (and rolls it back); once specs
	// run, Ginkgo handles interrupts itself and still runs every cleanup.
	bootCtx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	started := time.Now()
	fmt.Fprintf(out, "starting %s cluster...\n", provider.Name())
	env, err := harness.Boot(bootCtx, harness.Config{Provider: provider, Bounds: o.Bounds, Claimed: claimed, Logger: logger,
		ReferenceInitializers: o.referenceInitializers()})
	stopSignals()
	if err != nil {
		if provider.Name() == embedded.Name {
			return usageError("cluster set-up failed: %v (component output: %s)", err, componentLog.Name())
		}
		return usageError("cluster set-up failed: %v", err)
	}
	fmt.Fprintf(out, "cluster ready in %.1fs: %s, Kubernetes %s\n", time.Since(started).Seconds(), env.Cluster.Topology(), env.KubernetesVersion)

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
	res := runner.Run(&cliT{}, env, runOpts)

	stopping := time.Now()
	closeErr := env.Close(context.Background())
	fmt.Fprintf(out, "\ncluster stopped in %.1fs\n", time.Since(stopping).Seconds())
	reports := reportSet{dir: o.ReportDir, implementation: impl, keep: o.History, trendsFrom: o.History, runLog: runLog}
	rep, err := reports.write(res)
	if err != nil {
		return usageError("%v", err)
	}
	s := res.Summary
	notSelected := s.Total - selected(res)
	fmt.Fprintf(out, "%d passed, %d failed, %d skipped, %d not supported, %d not selected; %s\n",
		s.Passed, s.Failed, s.Skipped-notSelected, s.NotSupported, notSelected, profileSummary(rep))
	fmt.Fprintf(out, "reports in %s: %s\n", o.ReportDir, strings.Join(reportFiles, ", "))
	if closeErr != nil {
		return usageError("tear-down failed: %v", closeErr)
	}
	if s.Failed > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%d spec case(s) failed (details in %s and %s)", s.Failed,
			filepath.Join(o.ReportDir, runLogName), filepath.Join(o.ReportDir, htmlreport.FileName))}
	}
	if selected(res) == 0 {
		return usageError("no spec matched the selection (see 'run-conformance list')")
	}
	return nil
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
		return kubeconfig.New(kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context),
			kubeconfig.WithWebhookHost(o.WebhookHost), kubeconfig.WithPluginImage(o.PluginImage), kubeconfig.WithLogger(logger))
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
	}, delays...)...)
}

// progressLogger prints the harness's own progress messages (not the
// components') as plain lines.
func progressLogger(w io.Writer) logr.Logger {
	return funcr.New(func(prefix, args string) { fmt.Fprintln(w, "  "+prefix+" "+args) }, funcr.Options{Verbosity: 0})
}

// cliT stands in for *testing.T when Ginkgo runs outside go test.
type cliT struct{ failed bool }

func (t *cliT) Fail() { t.failed = true }
