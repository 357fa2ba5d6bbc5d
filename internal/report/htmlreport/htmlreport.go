// Package htmlreport writes report.html: one self-contained file (inline CSS
// and inline SVG, no script, nothing fetched) that opens anywhere, offline.
// It shows the result per profile, the failures first with their assertion
// message and what the fake webhooks saw, the measurements plotted against
// their bounds, and, with a history, each measurement's trend over the kept
// runs.
package htmlreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/report"
)

// FileName is report.html.
const FileName = "report.html"

// Input is what the page shows.
type Input struct {
	Results results.Results
	Report  report.ConformanceReport
	// History are the kept runs, oldest first; the current run should be
	// the last. Trends need two runs or more.
	History []results.Results
}

//go:embed page.html.tmpl
var pageTemplate string

//go:embed style.css
var style string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"seconds": func(f float64) string {
		return time.Duration(f * float64(time.Second)).Round(time.Millisecond).String()
	},
	"date": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"join": strings.Join,
	"few":  few,
	"ms":   formatValue,
	"pct":  func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
}).Parse(pageTemplate))

// view is the page's data.
type view struct {
	Style    template.CSS
	R        report.ConformanceReport
	Res      results.Results
	Duration string
	Failures []failure
	Plots    []Plot
	Trends   []Trend
	Kept     int
	Cases    []results.Spec
	// Repeated and Spreads show a run with --repeat (repeat.go).
	Repeated []repeated
	Spreads  []Spread
	AnyFlaky bool
}

type failure struct {
	Spec     results.Spec
	Timeline template.HTML
}

// Render writes the page to w.
func Render(w io.Writer, in Input) error {
	v := view{
		Style:  template.CSS(style),
		R:      in.Report,
		Res:    in.Results,
		Plots:  measurementPlots(in.Results),
		Trends: trends(in.History),
		Kept:   len(in.History),
		Cases:  ordered(in.Results.Specs),
	}
	if !in.Results.FinishedAt.IsZero() {
		v.Duration = in.Results.FinishedAt.Sub(in.Results.StartedAt).Round(time.Second).String()
	}
	v.Repeated, v.Spreads = repeatedCases(v.Cases), spreads(v.Cases)
	for _, p := range v.R.Profiles {
		v.AnyFlaky = v.AnyFlaky || p.Statistics.Flaky > 0
	}
	for _, s := range v.Cases {
		if s.State != results.Failed && s.State != results.Flaky {
			continue
		}
		f := failure{Spec: s}
		if s.Journal != nil {
			f.Timeline = journalTimeline(*s.Journal)
		}
		v.Failures = append(v.Failures, f)
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// few joins the first n names and says how many more there are, so a field
// every case reaches keeps a row of readable height.
func few(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// Write writes report.html into dir and returns its path.
func Write(dir string, in Input) (string, error) {
	var buf bytes.Buffer
	if err := Render(&buf, in); err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName)
	return path, os.WriteFile(path, buf.Bytes(), 0o644)
}

// ordered puts failures first, then the rest by state, then in suite order
// and by name.
func ordered(specs []results.Spec) []results.Spec {
	rank := map[results.State]int{results.Failed: 0, results.Flaky: 0, results.Skipped: 1, results.NotSupported: 2, results.Passed: 3}
	suite := map[string]int{}
	for i, s := range spec.Suites {
		suite[s] = i + 1 // harness-level entries (suite "harness") first
	}
	out := append([]results.Spec(nil), specs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rank[a.State] != rank[b.State] {
			return rank[a.State] < rank[b.State]
		}
		if suite[a.Suite] != suite[b.Suite] {
			return suite[a.Suite] < suite[b.Suite]
		}
		return a.Name < b.Name
	})
	return out
}
