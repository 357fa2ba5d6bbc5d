package cli

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr/funcr"
	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

// newRelayCommand is what the in-cluster relay pod runs (--plugin-image):
// it carries apiserver connections to the harness's webhook server through
// tunnels the harness opens.
func newRelayCommand() *cobra.Command {
	var listen, tunnel, health string
	cmd := &cobra.Command{
		Use:    kubeconfig.RelayCommand,
		Short:  "Relay apiserver connections to the harness's webhook server (runs in the cluster)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			logger := funcr.New(func(prefix, args string) { cmd.PrintErrln(prefix, args) }, funcr.Options{})
			go func() { _ = kubeconfig.ServeHealth(ctx, health) }()
			return kubeconfig.ServeRelay(ctx, listen, tunnel, logger)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", ":8443", "where apiservers connect")
	cmd.Flags().StringVar(&tunnel, "tunnel", ":9000", "where the harness's tunnel connections arrive")
	cmd.Flags().StringVar(&health, "health", ":9001", "readiness probe port (accepts and closes)")
	return cmd
}
