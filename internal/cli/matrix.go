package cli

import (
	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/engine/matrixrun"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

func newMatrixCommand() *cobra.Command {
	var o matrixrun.Options
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Run the specs in several clusters at once (in-cluster runs) and aggregate them into matrix.json and matrix.html",
		Long: "matrix runs the conformance specs in each target cluster, concurrently (--parallel), each as 'run --in-cluster' " +
			"into its own report dir under the matrix dir, and aggregates them: matrix.json and matrix.html (spec cases x targets, " +
			"measurements side by side, each target's profiles, and the cells that regressed since the matrix dir's previous run, " +
			"kept in previous/). A target is an existing cluster (kubeconfig, context, the harness image it pulls) or a kind cluster " +
			"to create (topology, node image). A target that cannot be reached or set up is reported as such; the others go on. " +
			"Targets come from -f matrix.yaml, or --target, repeatable: name=N,kubeconfig=PATH[,context=C][,image=REF] or " +
			"name=N,kind=TOPOLOGY[,node-image=IMAGE]. Exit 0 if every target passed, 1 if a target failed a case, 2 if a target " +
			"could not be run (or bad input).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			plan, err := o.Load(fs.Changed("dir"), fs.Changed("parallel"), fs.Changed("image"))
			if err != nil {
				return err
			}
			return plan.Run(cmd.OutOrStdout(), version)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.File, "file", "f", "", "matrix file (YAML): dir, parallel, image, run (options for every target), targets")
	fs.StringVar(&o.Dir, "dir", matrixrun.DefaultDir, "the matrix dir: a report dir per target, matrix.json, matrix.html; the previous run moves to previous/")
	fs.IntVar(&o.Parallel, "parallel", 2, "how many targets run at once")
	fs.StringVar(&o.Image, "image", "", "the harness image kubeconfig targets pull (write it with 'run-conformance image')")
	fs.StringVar(&o.Options, "options", "", "options file (run's) every target's run takes")
	fs.BoolVar(&o.NoCeilings, runconfig.NoCeilingsFlag, false, "do not check the kind clusters and targets --parallel runs at once against what this machine holds (see docs/running.md, Ceilings)")
	fs.StringArrayVar(&o.Targets, "target", nil, "a target, repeatable: name=N,kubeconfig=PATH[,context=C][,image=REF] or name=N,kind=TOPOLOGY[,node-image=IMAGE]")
	return cmd
}
