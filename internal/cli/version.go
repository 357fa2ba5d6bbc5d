package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/engine"
)

// version is set at build time with -ldflags
// "-X github.com/admission-conformance/admission-conformance/internal/cli.version=...".
var version = "dev"

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the harness version and the Kubernetes version it embeds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, _ := debug.ReadBuildInfo()
			goVersion := "unknown"
			if info != nil {
				goVersion = info.GoVersion
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run-conformance %s\nembedded kubernetes %s\n%s\n", version, engine.KubernetesModuleVersion(), goVersion)
			return nil
		},
	}
}
