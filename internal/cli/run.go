package cli

import (
	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/engine"
)

func newRunCommand() *cobra.Command {
	o := defaultRunOptions()
	var plan bool
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Boot a cluster and run the conformance specs against it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.load(cmd.Flags()); err != nil {
				return err
			}
			o.Version = version
			if plan {
				return engine.Plan(cmd.OutOrStdout(), o.Config)
			}
			return engine.Run(cmd.OutOrStdout(), cmd.ErrOrStderr(), o.Config)
		},
	}
	o.addFlags(cmd.Flags())
	cmd.Flags().BoolVar(&plan, "plan", false, "print every right the selection needs in the cluster (provider kubeconfig), with the specs that need it, "+
		"the optional ones and why, and ClusterRoles holding exactly them; contacts no cluster, creates nothing")
	return cmd
}
