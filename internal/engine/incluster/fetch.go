package incluster

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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// FetchOptions are `results`'s flags.
type FetchOptions struct {
	Kubeconfig, Context, RunID, ReportDir string
	Keep, NoWait                          bool
}

// Fetch is `results`: it lists the in-cluster runs a cluster holds
// (without runGiven), or follows run o.RunID until it ends, copies its
// report dir and deletes it from the cluster.
func Fetch(out io.Writer, o FetchOptions, runGiven bool) error {
	if runGiven {
		if err := check.RunID(o.RunID); err != nil {
			return err
		}
		if err := clusterrun.CheckRunID(o.RunID); err != nil {
			return exitcode.Usagef("--run: %v", err)
		}
		if err := check.OutputDir("--report-dir", o.ReportDir); err != nil {
			return err
		}
	}
	cfg, err := kubeconfig.New(kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context)).LoadConfig()
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	where := clusterFlags(o.Kubeconfig, o.Context)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	runs, err := clusterrun.List(ctx, client, o.RunID)
	cancel()
	if err != nil {
		return exitcode.Usagef("cluster at %s: %v", cfg.Host, exitcode.OneLine(err.Error()))
	}
	if !runGiven {
		return listRuns(out, runs)
	}
	if len(runs) == 0 || runs[0].Namespace == "" {
		return exitcode.Usagef("no in-cluster run %s in the cluster at %s (see 'run-conformance results %s')", o.RunID, cfg.Host, where)
	}
	st := runs[0]
	if st.Running && !st.Published {
		if o.NoWait {
			return exitcode.Usagef("in-cluster run %s is still running: fetch it once it ended (without --no-wait, this waits)", o.RunID)
		}
		if err := o.wait(out, client, st, where); err != nil {
			return err
		}
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	outcome, err := clusterrun.Fetch(ctx, client, st.Namespace, o.ReportDir)
	cancel()
	if errors.Is(err, clusterrun.ErrNoResults) {
		if !o.Keep {
			_ = deleteRun(client, cfg, st)
		}
		return exitcode.Usagef("in-cluster run %s ended without publishing its reports (its pod was killed or deleted)", o.RunID)
	}
	if err != nil {
		return exitcode.Usagef("cannot fetch the reports of in-cluster run %s: %v", o.RunID, exitcode.OneLine(err.Error()))
	}
	fmt.Fprintf(out, "in-cluster run %s ended %s: reports in %s: %s\n", o.RunID, outcome.Ended.Local().Format(time.RFC3339), o.ReportDir,
		strings.Join(outcome.Files, ", "))
	var deleteErr error
	if !o.Keep {
		started := time.Now()
		if deleteErr = deleteRun(client, cfg, st); deleteErr == nil {
			fmt.Fprintf(out, "removed the in-cluster run %s in %.1fs\n", o.RunID, time.Since(started).Seconds())
		}
	}
	c := &runClient{out: out, o: runconfig.Config{ReportDir: o.ReportDir}, where: where}
	return c.finish(outcome, deleteErr, nil)
}

// wait follows a running run's output until its pod ends. Ctrl-C stops
// following and leaves the run alone.
func (o FetchOptions) wait(out io.Writer, client kubernetes.Interface, st clusterrun.Status, where string) error {
	sig := interrupt.Watch(func(os.Signal) { os.Exit(exitcode.Failed) })
	defer sig.Stop()
	pods, err := client.CoreV1().Pods(st.Namespace).List(sig.Ctx, metav1.ListOptions{LabelSelector: clusterrun.RunLabel + "=" + st.ID})
	if err != nil || len(pods.Items) == 0 {
		return exitcode.Usagef("in-cluster run %s is running but its pod is not there (%v)", st.ID, err)
	}
	fmt.Fprintf(out, "in-cluster run %s is running; its output follows\n", st.ID)
	f := &clusterrun.Follower{Client: client, Namespace: st.Namespace, Pod: pods.Items[0].Name, Out: out, Lost: lostAfter}
	err = f.Follow(sig.Ctx)
	if s := sig.Received(); s != nil {
		return exitcode.Failedf("interrupted by %s: stopped following; the run goes on in the cluster ('run-conformance results %s --run %s')",
			interrupt.SignalName(s), where, st.ID)
	}
	if err != nil && !errors.Is(err, clusterrun.ErrPodGone) {
		return exitcode.Usagef("following in-cluster run %s: %v", st.ID, exitcode.OneLine(err.Error()))
	}
	return nil
}

// deleteRun removes an in-cluster run and what its specs left.
func deleteRun(client kubernetes.Interface, cfg *rest.Config, st clusterrun.Status) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	return clusterrun.Delete(ctx, client, st.ID, st.Namespace, func(ctx context.Context, id string) error { return harness.Sweep(ctx, cfg, id) }, logr.Discard())
}

// listRuns prints the in-cluster runs, one line each.
func listRuns(out io.Writer, runs []clusterrun.Status) error {
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
