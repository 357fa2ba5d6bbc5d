package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/cluster/kubeconfig"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/incluster"
)

// resultsOptions are `results`'s flags.
type resultsOptions struct {
	kubeconfig, context, runID, reportDir string
	keep, noWait                          bool
}

func newResultsCommand() *cobra.Command {
	var o resultsOptions
	cmd := &cobra.Command{
		Use:   "results",
		Short: "Fetch the reports of an in-cluster run (run --in-cluster) whose client went away, or list such runs",
		Long: "results lists the in-cluster runs a cluster holds (without --run), or, with --run ID, follows that run's output " +
			"until it ends (unless --no-wait), copies its report dir to --report-dir and deletes the run from the cluster " +
			"(unless --keep). The exit code is the run's: 0 passed, 1 a spec failed, 2 the run could not run.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.OutOrStdout(), cmd.Flags().Changed("run"))
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default loading rules)")
	fs.StringVar(&o.context, "context", "", "kubeconfig context")
	fs.StringVar(&o.runID, "run", "", "the in-cluster run's ID (as run --in-cluster printed it)")
	fs.StringVar(&o.reportDir, "report-dir", "_artifacts", "where the run's reports are copied")
	fs.BoolVar(&o.keep, "keep", false, "leave the run in the cluster after copying its reports")
	fs.BoolVar(&o.noWait, "no-wait", false, "do not wait for a run still running: say so and exit 2")
	return cmd
}

func (o resultsOptions) run(out io.Writer, runGiven bool) error {
	if runGiven {
		if err := checkRunID(o.runID); err != nil {
			return err
		}
		if err := incluster.CheckRunID(o.runID); err != nil {
			return usageError("--run: %v", err)
		}
		if err := checkOutputDir("--report-dir", o.reportDir); err != nil {
			return err
		}
	}
	cfg, err := kubeconfig.New(kubeconfig.WithPath(o.kubeconfig), kubeconfig.WithContext(o.context)).LoadConfig()
	if err != nil {
		return usageError("%v", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return usageError("%v", err)
	}
	where := clusterFlags(o.kubeconfig, o.context)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	runs, err := incluster.List(ctx, client, o.runID)
	cancel()
	if err != nil {
		return usageError("cluster at %s: %v", cfg.Host, oneLine(err.Error()))
	}
	if !runGiven {
		return listRuns(out, runs)
	}
	if len(runs) == 0 || runs[0].Namespace == "" {
		return usageError("no in-cluster run %s in the cluster at %s (see 'run-conformance results %s')", o.runID, cfg.Host, where)
	}
	st := runs[0]
	if st.Running && !st.Published {
		if o.noWait {
			return usageError("in-cluster run %s is still running: fetch it once it ended (without --no-wait, this waits)", o.runID)
		}
		if err := o.wait(out, client, st, where); err != nil {
			return err
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	outcome, err := incluster.Fetch(ctx, client, st.Namespace, o.reportDir)
	cancel()
	if errors.Is(err, incluster.ErrNoResults) {
		if !o.keep {
			_ = deleteRun(client, cfg, o.runID)
		}
		return usageError("in-cluster run %s ended without publishing its reports (its pod was killed or deleted)", o.runID)
	}
	if err != nil {
		return usageError("cannot fetch the reports of in-cluster run %s: %v", o.runID, oneLine(err.Error()))
	}
	fmt.Fprintf(out, "in-cluster run %s ended %s: reports in %s: %s\n", o.runID, outcome.Ended.Local().Format(time.RFC3339), o.reportDir,
		strings.Join(outcome.Files, ", "))
	var deleteErr error
	if !o.keep {
		started := time.Now()
		if deleteErr = deleteRun(client, cfg, o.runID); deleteErr == nil {
			fmt.Fprintf(out, "removed the in-cluster run %s in %.1fs\n", o.runID, time.Since(started).Seconds())
		}
	}
	c := &inClusterClient{out: out, o: runOptions{ReportDir: o.reportDir}, where: where}
	return c.finish(outcome, deleteErr, nil)
}

// wait follows a running run's output until its pod ends. Ctrl-C stops
// following and leaves the run alone.
func (o resultsOptions) wait(out io.Writer, client kubernetes.Interface, st incluster.Status, where string) error {
	sig := watchInterrupts(func(os.Signal) { os.Exit(exitFailed) })
	defer sig.stop()
	pods, err := client.CoreV1().Pods(st.Namespace).List(sig.ctx, metav1.ListOptions{LabelSelector: incluster.RunLabel + "=" + st.ID})
	if err != nil || len(pods.Items) == 0 {
		return usageError("in-cluster run %s is running but its pod is not there (%v)", st.ID, err)
	}
	fmt.Fprintf(out, "in-cluster run %s is running; its output follows\n", st.ID)
	f := &incluster.Follower{Client: client, Namespace: st.Namespace, Pod: pods.Items[0].Name, Out: out, Lost: lostAfter}
	err = f.Follow(sig.ctx)
	if s := sig.received(); s != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("interrupted by %s: stopped following; the run goes on in the cluster ('run-conformance results %s --run %s')",
			signalName(s), where, st.ID)}
	}
	if err != nil && !errors.Is(err, incluster.ErrPodGone) {
		return usageError("following in-cluster run %s: %v", st.ID, oneLine(err.Error()))
	}
	return nil
}

// deleteRun removes an in-cluster run and what its specs left.
func deleteRun(client kubernetes.Interface, cfg *rest.Config, runID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	return incluster.Delete(ctx, client, runID, func(ctx context.Context, id string) error { return harness.Sweep(ctx, cfg, id) }, logr.Discard())
}

// listRuns prints the in-cluster runs, one line each.
func listRuns(out io.Writer, runs []incluster.Status) error {
	if len(runs) == 0 {
		fmt.Fprintln(out, "no in-cluster run in the cluster")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATE\tAGE\tNAMESPACE")
	for _, r := range runs {
		state := "ended, reports ready"
		switch {
		case r.Namespace == "":
			state = "incomplete (remove it with cleanup --run)"
		case r.Published:
		case r.Running:
			state = "running"
		default:
			state = "ended without reports"
		}
		ns := r.Namespace
		if ns == "" {
			ns = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, state, time.Since(r.Created).Round(time.Second), ns)
	}
	return tw.Flush()
}
