package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// kubernetesModuleVersion is the k8s.io/kubernetes version the embedded
// control plane was built from.
func kubernetesModuleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "k8s.io/kubernetes" {
			return dep.Version
		}
	}
	return "unknown"
}

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
			fmt.Fprintf(cmd.OutOrStdout(), "run-conformance %s\nembedded kubernetes %s\n%s\n", version, kubernetesModuleVersion(), goVersion)
			return nil
		},
	}
}
