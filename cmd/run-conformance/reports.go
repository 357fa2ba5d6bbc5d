package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/report"
	"github.com/admission-conformance/admission-conformance/framework/report/history"
	"github.com/admission-conformance/admission-conformance/framework/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/framework/report/junit"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/testhook"
)

// reportFiles are what every run leaves in its report dir, besides
// components.log.
var reportFiles = []string{results.FileName, report.FileName, junit.FileName, runLogName, htmlreport.FileName}

const runLogName = "run.log"

// reportSet says where and how to write a run's reports.
type reportSet struct {
	dir            string
	implementation *report.Implementation
	// keep, when set, is a history dir that gets a copy of this run.
	keep string
	// trendsFrom, when set, is a history dir whose runs the HTML report
	// follows measurements over.
	trendsFrom string
	// runLog, when set, gets the details of every case that did not pass
	// and is copied into the history; it must be the report dir's run.log.
	runLog io.Writer
}

// write writes results.json, report.yaml, junit.xml and report.html, keeps
// the run in the history, and returns the report.
func (rs reportSet) write(res results.Results) (report.ConformanceReport, error) {
	rep := report.Build(res, rs.implementation)
	if _, err := results.Write(rs.dir, res); err != nil {
		return rep, fmt.Errorf("cannot write results: %w", err)
	}
	testhook.Panic(testhook.Report)
	testhook.Pause(testhook.Report)
	if _, err := report.Write(rs.dir, rep); err != nil {
		return rep, fmt.Errorf("cannot write %s: %w", report.FileName, err)
	}
	if _, err := junit.Write(rs.dir, res); err != nil {
		return rep, fmt.Errorf("cannot write %s: %w", junit.FileName, err)
	}
	if rs.runLog != nil {
		writeDetails(rs.runLog, res, rep)
	}
	if rs.keep != "" {
		var kept []string
		for _, f := range []string{results.FileName, report.FileName, junit.FileName, runLogName} {
			if f != runLogName || rs.runLog != nil {
				kept = append(kept, filepath.Join(rs.dir, f))
			}
		}
		if _, err := history.Save(rs.keep, res, kept...); err != nil {
			return rep, fmt.Errorf("cannot keep the run in --history %s: %w", rs.keep, err)
		}
	}
	in := htmlreport.Input{Results: res, Report: rep}
	if rs.trendsFrom != "" {
		runs, err := history.Runs(rs.trendsFrom)
		if err != nil {
			return rep, fmt.Errorf("cannot read --history %s: %w", rs.trendsFrom, err)
		}
		for _, r := range runs {
			in.History = append(in.History, r.Results)
		}
	}
	if _, err := htmlreport.Write(rs.dir, in); err != nil {
		return rep, fmt.Errorf("cannot write %s: %w", htmlreport.FileName, err)
	}
	return rep, nil
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

// profileSummary is one line: each profile's result and the overall one.
func profileSummary(rep report.ConformanceReport) string {
	parts := make([]string, len(rep.Profiles))
	for i, p := range rep.Profiles {
		parts[i] = p.Name + " " + string(p.Result)
	}
	return fmt.Sprintf("conformance %s (%s)", rep.Result, strings.Join(parts, ", "))
}
