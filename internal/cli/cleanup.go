package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/cleanup"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
)

func newCleanupCommand() *cobra.Command {
	var o cleanup.Options
	cmd := &cobra.Command{
		Use:   "cleanup",
		Short: "Remove what killed runs left: embedded clusters' files, objects in a cluster, kind clusters",
		Long: "cleanup removes the files (etcd data, keys, kubeconfig) that embedded clusters of runs killed with SIGKILL left " +
			"in the temp dir ($TMPDIR): the dirs " + strings.Join(rundir.Prefixes, "*, ") + "* whose run is no longer running (embedded " +
			"clusters, parallel workers' logs and results, kind and image work dirs); a running run's dir " +
			"is never touched. Plain 'cleanup' does only that. With --kubeconfig, --context or --run it also deletes every webhook " +
			"configuration, admission policy, binding and namespace labelled " + harness.RunLabel + " (of one run with --run, " +
			"of every run without) from that cluster (default loading rules), and waits until the namespaces are gone; in-cluster runs " +
			"(run --in-cluster, labelled " + clusterrun.RunLabel + ") are deleted whole, but for one still running without --run. With " +
			"--kind it also deletes the kind clusters runs created and did not delete; --kind alone touches no other cluster.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			o.RunGiven = fs.Changed("run")
			return cleanup.Run(cmd.Context(), cmd.OutOrStdout(), o, fs.Changed("kubeconfig") || fs.Changed("context") || o.RunGiven)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to sweep")
	fs.StringVar(&o.Context, "context", "", "kubeconfig context")
	fs.StringVar(&o.RunID, "run", "", "only this run's objects (the run ID; default every run's)")
	fs.BoolVar(&o.Kind, "kind", false, "also delete the kind clusters runs created and left behind")
	fs.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "how long to wait for deletions to finish")
	return cmd
}
