package cli

import (
	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/engine/incluster"
)

func newResultsCommand() *cobra.Command {
	var o incluster.FetchOptions
	cmd := &cobra.Command{
		Use:   "results",
		Short: "Fetch the reports of an in-cluster run (run --in-cluster) whose client went away, or list such runs",
		Long: "results lists the in-cluster runs a cluster holds (without --run), or, with --run ID, follows that run's output " +
			"until it ends (unless --no-wait), copies its report dir to --report-dir and deletes the run from the cluster " +
			"(unless --keep). The exit code is the run's: 0 passed, 1 a spec failed, 2 the run could not run.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return incluster.Fetch(cmd.OutOrStdout(), o, cmd.Flags().Changed("run"))
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (default loading rules)")
	fs.StringVar(&o.Context, "context", "", "kubeconfig context")
	fs.StringVar(&o.RunID, "run", "", "the in-cluster run's ID (as run --in-cluster printed it)")
	fs.StringVar(&o.ReportDir, "report-dir", "_artifacts", "where the run's reports are copied")
	fs.BoolVar(&o.Keep, "keep", false, "leave the run in the cluster after copying its reports")
	fs.BoolVar(&o.NoWait, "no-wait", false, "do not wait for a run still running: say so and exit 2")
	return cmd
}
