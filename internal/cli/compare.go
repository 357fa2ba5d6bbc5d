package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
	"github.com/admission-conformance/admission-conformance/internal/report/matrix"
)

func newCompareCommand() *cobra.Command {
	th := compare.DefaultThresholds()
	var output, htmlPath string
	var sideBySide bool
	cmd := &cobra.Command{
		Use:   "compare OLD NEW | compare HISTORY | compare --matrix RUN RUN [RUN...]",
		Short: "List spec state changes and measurements that moved between two runs (or lay N runs side by side); exit 1 on a regression",
		Long: `compare reads two runs, each a results.json, a report dir, or a history dir (its newest run),
or one history dir (its two newest runs). It lists spec cases whose state changed and measurements
that moved beyond every threshold or crossed their bounds. A regression is a case that stopped
passing or started failing, or a measurement that grew beyond the thresholds or left its bounds.
Exit codes: 0 no regression, 1 regressions, 2 bad input.

With --matrix, compare lays two runs or more side by side (for example the full run on each
Kubernetes version, make conformance-versions): every spec case's state per run and every
measurement per run with its bounds, rows that differ between runs marked and listed first.
Columns are named by the Kubernetes version each results.json records, else by its folder.
--html also writes the matrix as a self-contained page (a file, or matrix.html in a dir).
Exit codes with --matrix: 0 every case has the same state in every run, 1 some case's state
differs between runs, 2 bad input.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if sideBySide {
				if len(args) < 2 {
					return exitcode.Usagef("compare --matrix needs two runs or more, got %d", len(args))
				}
				return nil
			}
			return cobra.RangeArgs(1, 2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return exitcode.Usagef("--output must be text or json, got %q", output)
			}
			if htmlPath != "" && !sideBySide {
				return exitcode.Usagef("--html goes with --matrix")
			}
			if err := checkThreshold("--threshold-relative", th.Relative); err != nil {
				return err
			}
			if err := checkThreshold("--threshold-of-bound", th.OfBound); err != nil {
				return err
			}
			if th.Absolute < 0 {
				return exitcode.Usagef("--threshold-absolute must not be negative, got %s", th.Absolute)
			}
			if sideBySide {
				return compareMatrix(cmd.OutOrStdout(), args, th, output, htmlPath)
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
				return exitcode.Failedf("%d regression(s) from %s to %s", n, old.file, cur.file)
			}
			return nil
		},
	}
	cmd.Flags().Float64Var(&th.Relative, "threshold-relative", th.Relative, "a measurement moved when it changed by more than this fraction of the old value (0.25 = 25%)")
	cmd.Flags().DurationVar(&th.Absolute, "threshold-absolute", th.Absolute, "and, for measurements in time units, by more than this duration")
	cmd.Flags().Float64Var(&th.OfBound, "threshold-of-bound", th.OfBound, "and, for measurements with an upper bound, by more than this fraction of the bound")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	cmd.Flags().BoolVar(&sideBySide, "matrix", false, "lay two runs or more side by side: every case's state and every measurement per run")
	cmd.Flags().StringVar(&htmlPath, "html", "", "with --matrix, also write the matrix page to this file (or to matrix.html in this dir)")
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
		return comparedRun{}, comparedRun{}, exitcode.Usagef("with one argument, compare needs a history dir (see run --history), got %s", args[0])
	}
	runs, err := history.Runs(args[0])
	if err != nil {
		return comparedRun{}, comparedRun{}, exitcode.Usagef("history dir %s: %v", args[0], exitcode.OneLine(err.Error()))
	}
	if len(runs) < 2 {
		return comparedRun{}, comparedRun{}, exitcode.Usagef("history dir %s keeps %d run(s); compare needs two", args[0], len(runs))
	}
	old, cur := runs[len(runs)-2], runs[len(runs)-1]
	return comparedRun{old.Results, old.Dir}, comparedRun{cur.Results, cur.Dir}, nil
}

// compareMatrix lays the runs of args side by side.
func compareMatrix(w io.Writer, args []string, th compare.Thresholds, output, htmlPath string) error {
	if htmlPath != "" {
		resolved, err := matrixHTMLPath(htmlPath)
		if err != nil {
			return err
		}
		htmlPath = resolved
	}
	started := time.Now()
	inputs := make([]matrix.Input, len(args))
	for i, a := range args {
		res, file, err := history.Resolve(a)
		if err != nil {
			return resolveError(fmt.Sprintf("RUN %d", i+1), a, err)
		}
		inputs[i] = matrix.ResultsInput(file, res)
	}
	m := matrix.Build(inputs, matrix.Header{Title: "Admission conformance across runs", Started: started, Finished: time.Now(), Thresholds: th})
	if htmlPath != "" {
		if err := matrix.WriteHTML(htmlPath, m); err != nil {
			return exitcode.Usagef("--html %s: %v", htmlPath, err)
		}
	}
	if output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(m); err != nil {
			return err
		}
	} else {
		m.WriteText(w)
	}
	if m.CasesDiffering > 0 {
		return exitcode.Failedf("%d spec case(s) differ in state between the %d runs", m.CasesDiffering, len(inputs))
	}
	return nil
}

// matrixHTMLPath checks --html: an existing dir gets matrix.html; a file
// must be in an existing dir.
func matrixHTMLPath(path string) (string, error) {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return filepath.Join(path, matrix.HTMLName), nil
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return "", exitcode.Usagef("--html %s: its directory %s does not exist: create it first or write elsewhere", path, filepath.Dir(path))
	}
	return path, nil
}

// checkThreshold rejects negative, infinite and not-a-number thresholds.
func checkThreshold(flag string, v float64) error {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return exitcode.Usagef("%s must be a finite number, 0 or more, got %v", flag, v)
	}
	return nil
}

// resolveError says what a results argument must be.
func resolveError(what, path string, err error) error {
	return exitcode.Usagef("%s %s: %v (give a results.json, a report dir or a history dir)", what, path, exitcode.OneLine(err.Error()))
}
