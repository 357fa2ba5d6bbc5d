package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
	"github.com/admission-conformance/admission-conformance/internal/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
	"github.com/admission-conformance/admission-conformance/internal/reports"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

func newReportCommand() *cobra.Command {
	var impl report.Implementation
	var reportDir, historyDir string
	cmd := &cobra.Command{
		Use:   "report RESULTS",
		Short: "Write report.yaml, junit.xml and report.html again from a results.json (no cluster)",
		Long: `report rebuilds a run's reports from its results (a results.json, a report dir, or a history
dir: its newest run), for example to state the implementation after the fact or to show trends
over a history dir. The run itself is not kept in the history.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stated, err := runconfig.ImplementationOrNil(impl)
			if err != nil {
				return err
			}
			res, file, err := history.Resolve(args[0])
			if err != nil {
				return resolveError("RESULTS", args[0], err)
			}
			if reportDir == "" {
				reportDir = filepath.Dir(file)
			}
			// Nothing is written unless all of it can be.
			if err := check.OutputDir("--report-dir", reportDir); err != nil {
				return err
			}
			if historyDir != "" {
				if _, err := history.Runs(historyDir); err != nil {
					return exitcode.Usagef("--history %s: %v (give a history dir written by run --history)", historyDir, exitcode.OneLine(err.Error()))
				}
			}
			rs := reports.Set{Dir: reportDir, Implementation: stated, TrendsFrom: historyDir}
			rep, err := rs.Write(res)
			if err != nil {
				return exitcode.Usagef("%v", err)
			}
			written := []string{results.FileName, report.FileName, junit.FileName, htmlreport.FileName}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\nreports in %s: %s\n", reports.ProfileSummary(rep), reportDir, strings.Join(written, ", "))
			return nil
		},
	}
	cmd.Flags().StringVar(&reportDir, "report-dir", "", "where to write the reports (default: next to RESULTS)")
	cmd.Flags().StringVar(&historyDir, "history", "", "history dir whose kept runs report.html shows trends over")
	addImplementationFlags(cmd.Flags(), &impl)
	return cmd
}
