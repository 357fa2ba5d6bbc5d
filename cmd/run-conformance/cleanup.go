package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/cluster/embedded"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kind"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kubeconfig"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

type cleanupOptions struct {
	kubeconfig, context, runID string
	kind, runGiven             bool
	timeout                    time.Duration
}

func newCleanupCommand() *cobra.Command {
	var o cleanupOptions
	cmd := &cobra.Command{
		Use:   "cleanup",
		Short: "Remove what killed runs left: embedded clusters' files, objects in a cluster, kind clusters",
		Long: "cleanup removes the files (etcd data, keys, kubeconfig) that embedded clusters of runs killed with SIGKILL left " +
			"in the temp dir ($TMPDIR): the dirs " + embedded.DirPrefix + "* whose run is no longer running; a running run's dir " +
			"is never touched. Plain 'cleanup' does only that. With --kubeconfig, --context or --run it also deletes every webhook " +
			"configuration, admission policy, binding and namespace labelled " + harness.RunLabel + " (of one run with --run, " +
			"of every run without) from that cluster (default loading rules), and waits until the namespaces are gone. With " +
			"--kind it also deletes the kind clusters runs created and did not delete; --kind alone touches no other cluster.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			o.runGiven = fs.Changed("run")
			return o.run(cmd.Context(), cmd.OutOrStdout(), fs.Changed("kubeconfig") || fs.Changed("context") || o.runGiven)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to sweep")
	fs.StringVar(&o.context, "context", "", "kubeconfig context")
	fs.StringVar(&o.runID, "run", "", "only this run's objects (the run ID; default every run's)")
	fs.BoolVar(&o.kind, "kind", false, "also delete the kind clusters runs created and left behind")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "how long to wait for deletions to finish")
	return cmd
}

func (o cleanupOptions) run(ctx context.Context, out io.Writer, clusterGiven bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.timeout <= 0 {
		return usageError("--timeout must be positive, got %s", o.timeout)
	}
	var cfg *rest.Config
	if clusterGiven {
		if o.runGiven {
			if err := checkRunID(o.runID); err != nil {
				return err
			}
		}
		var err error
		if cfg, err = kubeconfig.New(kubeconfig.WithPath(o.kubeconfig), kubeconfig.WithContext(o.context)).LoadConfig(); err != nil {
			return usageError("%v", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	removed, err := embedded.RemoveLeftovers("")
	for _, l := range removed {
		fmt.Fprintf(out, "removed the files of a killed run: %s\n", l)
	}
	if err != nil {
		return usageError("%v", err)
	}
	if len(removed) == 0 {
		fmt.Fprintf(out, "no embedded cluster files left by a killed run in %s\n", os.TempDir())
	}
	if o.kind {
		deleted, err := kind.DeleteLeftovers(kind.DefaultLedgerDir())
		for _, n := range deleted {
			fmt.Fprintf(out, "deleted kind cluster %s\n", n)
		}
		if err != nil {
			return usageError("%v", err)
		}
		if len(deleted) == 0 {
			fmt.Fprintln(out, "no kind cluster left by a run")
		}
	}
	if cfg == nil {
		return nil
	}
	return sweepCluster(ctx, out, cfg, o.runID)
}

// sweepCluster prints what carries the run label, deletes it and waits
// until the namespaces are gone.
func sweepCluster(ctx context.Context, out io.Writer, cfg *rest.Config, runID string) error {
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return usageError("%v", err)
	}
	selector := harness.RunLabel
	if runID != "" {
		selector += "=" + runID
	}
	found, err := labelled(ctx, client, selector)
	if err != nil {
		return usageError("cluster at %s: %v", cfg.Host, oneLine(err.Error()))
	}
	if len(found) == 0 {
		fmt.Fprintf(out, "nothing labelled %s in the cluster at %s\n", selector, cfg.Host)
		return nil
	}
	for _, f := range found {
		fmt.Fprintf(out, "deleting %s\n", f)
	}
	if err := harness.Sweep(ctx, cfg, runID); err != nil {
		return usageError("%v", oneLine(err.Error()))
	}
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		left, err := labelled(ctx, client, selector)
		return err == nil && len(left) == 0, nil
	})
	if err != nil {
		left, _ := labelled(context.Background(), client, selector)
		return usageError("still in the cluster after the sweep: %v", left)
	}
	fmt.Fprintf(out, "removed %d object(s) labelled %s\n", len(found), selector)
	return nil
}

// swept are the cluster-level kinds a run creates (namespaced objects go
// with their namespaces), as Sweep deletes them.
var swept = []schema.GroupVersionResource{
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicies"},
	{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingadmissionpolicybindings"},
	{Version: "v1", Resource: "namespaces"},
}

// labelled lists those objects carrying the selector's label.
func labelled(ctx context.Context, client metadata.Interface, selector string) ([]string, error) {
	var out []string
	for _, gvr := range swept {
		l, err := client.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvr.Resource, err)
		}
		for _, o := range l.Items {
			out = append(out, gvr.Resource+"/"+o.Name)
		}
	}
	return out, nil
}
