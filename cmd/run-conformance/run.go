package main

import (
	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/engine"
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
			o.Version = version
			return engine.Run(cmd.OutOrStdout(), cmd.ErrOrStderr(), o.Config)
		},
	}
	o.addFlags(cmd.Flags())
	return cmd
}
