// Package reports writes a run's reports into its report dir (results.json,
// report.yaml, junit.xml, report.html, the end of run.log) and keeps runs in
// a history dir.
package reports

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
	"github.com/admission-conformance/admission-conformance/internal/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/internal/report/junit"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// Files are what every run leaves in its report dir, besides
// components.log.
var Files = []string{results.FileName, report.FileName, junit.FileName, RunLogName, htmlreport.FileName}

// RunLogName is the run's log in its report dir.
const RunLogName = "run.log"

// Set says where and how to write a run's reports.
type Set struct {
	Dir            string
	Implementation *report.Implementation
	// Keep, when set, is a history dir that gets a copy of this run.
	Keep string
	// TrendsFrom, when set, is a history dir whose runs the HTML report
	// follows measurements over.
	TrendsFrom string
	// RunLog, when set, gets the details of every case that did not pass
	// and is copied into the history; it must be the report dir's run.log.
	RunLog io.Writer
}

// Write writes results.json, report.yaml, junit.xml and report.html, keeps
// the run in the history, and returns the report.
func (rs Set) Write(res results.Results) (report.ConformanceReport, error) {
	rep := report.Build(res, rs.Implementation)
	if _, err := results.Write(rs.Dir, res); err != nil {
		return rep, fmt.Errorf("cannot write results: %w", err)
	}
	testhook.Panic(testhook.Report)
	testhook.Pause(testhook.Report)
	if _, err := report.Write(rs.Dir, rep); err != nil {
		return rep, fmt.Errorf("cannot write %s: %w", report.FileName, err)
	}
	if _, err := junit.Write(rs.Dir, res); err != nil {
		return rep, fmt.Errorf("cannot write %s: %w", junit.FileName, err)
	}
	if rs.RunLog != nil {
		writeDetails(rs.RunLog, res, rep)
	}
	if rs.Keep != "" {
		var kept []string
		for _, f := range []string{results.FileName, report.FileName, junit.FileName, RunLogName} {
			if f != RunLogName || rs.RunLog != nil {
				kept = append(kept, filepath.Join(rs.Dir, f))
			}
		}
		if _, err := history.Save(rs.Keep, res, kept...); err != nil {
			return rep, fmt.Errorf("cannot keep the run in --history %s: %w", rs.Keep, err)
		}
	}
	if err := writeHTML(rs.Dir, htmlreport.Input{Results: res, Report: rep}, rs.TrendsFrom); err != nil {
		var trends *trendsError
		if errors.As(err, &trends) {
			return rep, err
		}
		return rep, fmt.Errorf("cannot write %s: %w", htmlreport.FileName, err)
	}
	return rep, nil
}

// trendsError is a history dir whose runs do not read.
type trendsError struct{ err error }

func (e *trendsError) Error() string { return e.err.Error() }

// writeHTML writes report.html, with the trends over the runs kept in
// trendsFrom (when set).
func writeHTML(dir string, in htmlreport.Input, trendsFrom string) error {
	if trendsFrom != "" {
		runs, err := history.Runs(trendsFrom)
		if err != nil {
			return &trendsError{fmt.Errorf("cannot read --history %s: %w", trendsFrom, err)}
		}
		for _, r := range runs {
			in.History = append(in.History, r.Results)
		}
	}
	_, err := htmlreport.Write(dir, in)
	return err
}

// KeepInHistory copies a run fetched into dir (an in-cluster run's, whose
// pod wrote its reports) into historyDir and redraws report.html with the
// trends over the kept runs.
func KeepInHistory(dir, historyDir string, impl *report.Implementation) error {
	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		return fmt.Errorf("cannot read the fetched results: %w", err)
	}
	var kept []string
	for _, f := range []string{results.FileName, report.FileName, junit.FileName, RunLogName} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			kept = append(kept, filepath.Join(dir, f))
		}
	}
	if _, err := history.Save(historyDir, res, kept...); err != nil {
		return fmt.Errorf("cannot keep the run in --history %s: %w", historyDir, err)
	}
	return writeHTML(dir, htmlreport.Input{Results: res, Report: report.Build(res, impl)}, historyDir)
}

// writeDetails ends the run log with the profiles' results and the full
// story of every case that did not pass: message, location, how late the
// harness's own wake-ups came, measurements and what the fake webhooks saw.
func writeDetails(w io.Writer, res results.Results, rep report.ConformanceReport) {
	fmt.Fprintf(w, "\n=== report: %s\n", rep.Result)
	for _, p := range rep.Profiles {
		s := p.Statistics
		flaky := ""
		if s.Flaky > 0 {
			flaky = fmt.Sprintf(", %d flaky", s.Flaky)
		}
		fmt.Fprintf(w, "profile %-9s %-8s %d passed, %d failed, %d skipped, %d not supported%s\n", p.Name, p.Result, s.Passed, s.Failed, s.Skipped, s.NotSupported, flaky)
	}
	for _, s := range res.Specs {
		if s.State == results.Passed || s.Message == results.NotSelected {
			continue
		}
		fmt.Fprintf(w, "\n--- %s %s/%s: %s\n", strings.ToUpper(string(s.State)), s.Suite, s.ShortName, s.Name)
		fmt.Fprintln(w, strings.TrimRight(s.Message, "\n"))
		if s.Location != "" {
			fmt.Fprintln(w, "at "+s.Location)
		}
		if d := s.HarnessDelayText(); d != "" {
			fmt.Fprintln(w, d)
		}
		for _, m := range s.Measurements {
			fmt.Fprintln(w, "measured "+m.String())
		}
		for _, r := range s.Repetitions {
			line := fmt.Sprintf("repetition %d: %s (%.1fs)", r.Index, r.State, r.Duration)
			if r.State != results.Passed && r.Message != "" {
				line += ": " + firstLine(r.Message)
			}
			fmt.Fprintln(w, line)
		}
		if s.Journal != nil {
			fmt.Fprint(w, s.Journal.Text())
		}
	}
}

// ProfileSummary is one line: each profile's result and the overall one.
func ProfileSummary(rep report.ConformanceReport) string {
	parts := make([]string, len(rep.Profiles))
	for i, p := range rep.Profiles {
		parts[i] = p.Name + " " + string(p.Result)
	}
	return fmt.Sprintf("conformance %s (%s)", rep.Result, strings.Join(parts, ", "))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
