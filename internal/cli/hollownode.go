package cli

import (
	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
)

// newHollowNodeCommand runs one hollow kubelet from a node configuration
// file (the one the embedded provider writes as nodes/<name>/node.json). The
// provider starts nodes through nodeset.RunIfChild, not through this command;
// it is here to start a node by hand when debugging one. Hidden: users never
// need it.
func newHollowNodeCommand() *cobra.Command {
	var config string
	cmd := &cobra.Command{
		Use:    "hollow-node --config FILE",
		Short:  "Run one hollow kubelet (a node of the embedded cluster) until stdin closes",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if config == "" {
				return exitcode.Usagef("hollow-node needs --config")
			}
			return nodeset.RunChild(nodeset.RoleHollowNode, config)
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "node configuration file (JSON)")
	return cmd
}
