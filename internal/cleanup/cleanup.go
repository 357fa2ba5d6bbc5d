// Package cleanup removes what killed runs left (`cleanup`): embedded
// clusters' files in the temp dir, kind clusters, and the objects runs
// labelled in a cluster.
package cleanup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/runobjects"
	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/engine/interrupt"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
)

// Options are `cleanup`'s flags.
type Options struct {
	Kubeconfig, Context, RunID string
	Kind, RunGiven             bool
	Timeout                    time.Duration
}

// Run is `cleanup`: the dirs of killed runs, the kind clusters runs left
// (o.Kind), and, when clusterGiven, the objects runs labelled in that
// cluster.
func Run(ctx context.Context, out io.Writer, o Options, clusterGiven bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Timeout <= 0 {
		return exitcode.Usagef("--timeout must be positive, got %s", o.Timeout)
	}
	var cfg *rest.Config
	if clusterGiven {
		if o.RunGiven {
			if err := check.RunID(o.RunID); err != nil {
				return err
			}
		}
		var err error
		if cfg, err = kubeconfig.New(kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context)).LoadConfig(); err != nil {
			return exitcode.Usagef("%v", err)
		}
	}
	// SIGINT, SIGTERM and SIGHUP stop cleanup where it is (deletions it
	// asked for go on in the cluster); a second cleanup finishes the rest.
	sig := interrupt.Watch(func(s os.Signal) {
		fmt.Fprintf(os.Stderr, "run-conformance: interrupted a third time (%s): exiting now; run 'run-conformance cleanup' again to finish\n", interrupt.SignalName(s))
		os.Exit(exitcode.Failed)
	})
	defer sig.Stop()
	sig.Tell(out, bounds.Defaults().InterruptStop.Duration)
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	defer context.AfterFunc(sig.Ctx, cancel)()
	err := o.clean(ctx, out, cfg)
	if s := sig.Received(); s != nil {
		return exitcode.Failedf("interrupted by %s: cleanup stopped before it finished; run it again to finish", interrupt.SignalName(s))
	}
	return err
}

// clean is cleanup's work once its input is checked: the dirs of killed
// runs, kind clusters, a cluster's labelled objects (cfg, if given).
func (o Options) clean(ctx context.Context, out io.Writer, cfg *rest.Config) error {
	removed, err := rundir.RemoveLeftovers("")
	for _, l := range removed {
		fmt.Fprintf(out, "removed the files of a killed run: %s\n", l)
	}
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	if len(removed) == 0 {
		fmt.Fprintf(out, "no files left by a killed run in %s\n", os.TempDir())
	}
	if o.Kind {
		deleted, err := kind.DeleteLeftovers(kind.DefaultLedgerDir())
		for _, n := range deleted {
			fmt.Fprintf(out, "deleted kind cluster %s\n", n)
		}
		if err != nil {
			return exitcode.Usagef("%v", err)
		}
		if len(deleted) == 0 {
			fmt.Fprintln(out, "no kind cluster left by a run")
		}
	}
	if cfg == nil {
		return nil
	}
	return sweepCluster(ctx, out, cfg, o.RunID)
}

// sweepCluster prints what carries the run label, deletes it and waits
// until the namespaces are gone. In-cluster runs (run --in-cluster) are
// deleted whole (pod, objects, what their specs left); without --run, one
// still running is left alone, with what its specs created.
func sweepCluster(ctx context.Context, out io.Writer, cfg *rest.Config, runID string) error {
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	runs, err := clusterrun.List(ctx, kc, runID)
	if err != nil {
		return exitcode.Usagef("cluster at %s: %v", cfg.Host, exitcode.OneLine(err.Error()))
	}
	live := map[string]bool{}
	var gone []clusterrun.Status
	for _, r := range runs {
		if runID == "" && r.Running {
			live[r.ID] = true
			fmt.Fprintf(out, "in-cluster run %s is still running: left alone (fetch it with 'run-conformance results --run %s', or stop and remove it with 'cleanup --run %s')\n",
				r.ID, r.ID, r.ID)
			continue
		}
		gone = append(gone, r)
	}
	selector := harness.RunLabel
	if runID != "" {
		selector += "=" + runID
	}
	found, err := labelled(ctx, client, selector, live)
	if err != nil {
		return exitcode.Usagef("cluster at %s: %v", cfg.Host, exitcode.OneLine(err.Error()))
	}
	if len(found) == 0 && len(gone) == 0 {
		fmt.Fprintf(out, "nothing labelled %s or %s in the cluster at %s\n", selector, strings.Replace(selector, harness.RunLabel, clusterrun.RunLabel, 1), cfg.Host)
		return nil
	}
	removed := 0
	for _, r := range gone {
		for _, obj := range r.Objects {
			fmt.Fprintf(out, "deleting %s (in-cluster run %s)\n", obj, r.ID)
		}
		removed += len(r.Objects)
		if err := clusterrun.Delete(ctx, kc, r.ID, r.Namespace, func(ctx context.Context, id string) error { return harness.Sweep(ctx, cfg, id) }, logr.Discard()); err != nil {
			return exitcode.Usagef("in-cluster run %s: %v", r.ID, exitcode.OneLine(err.Error()))
		}
	}
	for _, f := range found {
		fmt.Fprintf(out, "deleting %s\n", f.what)
	}
	ids := map[string]bool{}
	for _, f := range found {
		ids[f.run] = true
	}
	if len(live) == 0 {
		if err := harness.Sweep(ctx, cfg, runID); err != nil {
			return exitcode.Usagef("%v", exitcode.OneLine(err.Error()))
		}
	} else {
		for id := range ids {
			if err := harness.Sweep(ctx, cfg, id); err != nil {
				return exitcode.Usagef("%v", exitcode.OneLine(err.Error()))
			}
		}
	}
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		left, err := labelled(ctx, client, selector, live)
		return err == nil && len(left) == 0, nil
	})
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return err // interrupted: the caller says so, at once (listing again waits for the client's rate limit)
		}
		left, _ := labelled(context.Background(), client, selector, live)
		return exitcode.Usagef("still in the cluster after the sweep: %v", left)
	}
	fmt.Fprintf(out, "removed %d object(s) labelled %s\n", removed+len(found), selector)
	return nil
}

// labelledObject is an object a run created, and that run's ID.
type labelledObject struct{ what, run string }

func (l labelledObject) String() string { return l.what }

// labelled lists those objects carrying the selector's label, but for the
// runs in skip.
func labelled(ctx context.Context, client metadata.Interface, selector string, skip map[string]bool) ([]labelledObject, error) {
	var out []labelledObject
	for _, k := range runobjects.Kinds() {
		l, err := client.Resource(k.Resource).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if apierrors.IsNotFound(err) {
			continue // a kind this cluster does not serve holds nothing
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", k.What, err)
		}
		for _, o := range l.Items {
			if run := o.Labels[harness.RunLabel]; !skip[run] {
				out = append(out, labelledObject{what: k.Resource.Resource + "/" + o.Name, run: run})
			}
		}
	}
	return out, nil
}
