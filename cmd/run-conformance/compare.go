package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/report/compare"
	"github.com/admission-conformance/admission-conformance/framework/report/history"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

func newCompareCommand() *cobra.Command {
	th := compare.DefaultThresholds()
	var output string
	cmd := &cobra.Command{
		Use:   "compare OLD NEW | compare HISTORY",
		Short: "List spec state changes and measurements that moved between two runs; exit 1 on a regression",
		Long: `compare reads two runs, each a results.json, a report dir, or a history dir (its newest run),
or one history dir (its two newest runs). It lists spec cases whose state changed and measurements
that moved beyond every threshold or crossed their bounds. A regression is a case that stopped
passing or started failing, or a measurement that grew beyond the thresholds or left its bounds.
Exit codes: 0 no regression, 1 regressions, 2 bad input.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError("--output must be text or json, got %q", output)
			}
			if err := checkThreshold("--threshold-relative", th.Relative); err != nil {
				return err
			}
			if err := checkThreshold("--threshold-of-bound", th.OfBound); err != nil {
				return err
			}
			if th.Absolute < 0 {
				return usageError("--threshold-absolute must not be negative, got %s", th.Absolute)
			}
			old, cur, err := comparedRuns(args)
			if err != nil {
				return err
			}
			d := compare.Compare(old.res, cur.res, th)
			w := cmd.OutOrStdout()
			if output == "json" {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if err := enc.Encode(d); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "old: %s (started %s, harness %s)\nnew: %s (started %s, harness %s)\n",
					old.file, old.res.StartedAt.UTC().Format(time.RFC3339), old.res.HarnessVersion,
					cur.file, cur.res.StartedAt.UTC().Format(time.RFC3339), cur.res.HarnessVersion)
				d.WriteText(w)
			}
			if n := d.Regressions(); n > 0 {
				return &exitError{code: exitFailed, err: fmt.Errorf("%d regression(s) from %s to %s", n, old.file, cur.file)}
			}
			return nil
		},
	}
	cmd.Flags().Float64Var(&th.Relative, "threshold-relative", th.Relative, "a measurement moved when it changed by more than this fraction of the old value (0.25 = 25%)")
	cmd.Flags().DurationVar(&th.Absolute, "threshold-absolute", th.Absolute, "and, for measurements in time units, by more than this duration")
	cmd.Flags().Float64Var(&th.OfBound, "threshold-of-bound", th.OfBound, "and, for measurements with an upper bound, by more than this fraction of the bound")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return cmd
}

type comparedRun struct {
	res  results.Results
	file string
}

// comparedRuns resolves the arguments into the old and the new run.
func comparedRuns(args []string) (comparedRun, comparedRun, error) {
	if len(args) == 2 {
		var runs [2]comparedRun
		for i, a := range args {
			res, file, err := history.Resolve(a)
			if err != nil {
				return comparedRun{}, comparedRun{}, resolveError([2]string{"OLD", "NEW"}[i], a, err)
			}
			runs[i] = comparedRun{res, file}
		}
		return runs[0], runs[1], nil
	}
	if info, err := os.Stat(args[0]); err != nil || !info.IsDir() {
		return comparedRun{}, comparedRun{}, usageError("with one argument, compare needs a history dir (see run --history), got %s", args[0])
	}
	runs, err := history.Runs(args[0])
	if err != nil {
		return comparedRun{}, comparedRun{}, usageError("history dir %s: %v", args[0], oneLine(err.Error()))
	}
	if len(runs) < 2 {
		return comparedRun{}, comparedRun{}, usageError("history dir %s keeps %d run(s); compare needs two", args[0], len(runs))
	}
	old, cur := runs[len(runs)-2], runs[len(runs)-1]
	return comparedRun{old.Results, old.Dir}, comparedRun{cur.Results, cur.Dir}, nil
}
