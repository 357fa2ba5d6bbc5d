// Package cli is run-conformance's command line: it boots a cluster,
// installs fake admission plugins and runs the registered conformance specs
// against it. cmd/run-conformance (with the project's suites) and a vendor's
// own binary (with its specs, through the public package conformance) both
// run it.
//
// Exit codes: 0 all selected specs passed (compare: no regression), 1 a spec
// failed (compare: a regression) or the run was interrupted once specs ran,
// 2 bad input, a cluster that could not be set up, or a panic outside the
// specs (a bug).
package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
)

// Main runs the command line with args (without the program name) and
// returns the exit code. The specs it runs are those registered (by
// importing their packages) in this binary. The binary is also the embedded
// cluster's nodes and a parallel run's workers: Main serves those roles
// first when the process is one (nodeset.RunIfChild does not return then).
func Main(args []string) (code int) {
	nodeset.RunIfChild()
	return run(args)
}

func run(args []string) (code int) {
	// A panic is a bug in the harness; users get one line, not a trace.
	// (run recovers its own first, to stop the cluster.)
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintln(os.Stderr, "run-conformance: "+exitcode.OneLine(fmt.Sprintf("internal error (a bug in run-conformance): %v", r)))
			code = exitcode.Usage
		}
	}()
	root := newRootCommand()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitcode.Passed
	}
	var ee *exitcode.Error
	if errors.As(err, &ee) && ee.Code == exitcode.Failed {
		fmt.Fprintln(os.Stderr, "run-conformance: "+exitcode.OneLine(err.Error()))
		return exitcode.Failed
	}
	fmt.Fprintln(os.Stderr, "run-conformance: "+exitcode.OneLine(err.Error()))
	return exitcode.Usage
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "run-conformance",
		Short:         "Conformance harness for Kubernetes admission extensions",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// Flag errors are usage errors: say what is wrong and how to see the flags.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitcode.Usagef("%v (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newRunCommand(), newListCommand(), newVersionCommand(), newCompareCommand(), newReportCommand(), newHollowNodeCommand())
	root.AddCommand(newCleanupCommand(), newImageCommand(), newRelayCommand(), newResultsCommand(), newMatrixCommand())
	root.AddCommand(newCertifyCommand(), newVerifyCommand())
	return root
}
