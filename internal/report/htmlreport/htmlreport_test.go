package htmlreport_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report"
	"github.com/admission-conformance/admission-conformance/internal/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/internal/report/htmltest"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// synthetic is the current run (reporttest's) with three earlier kept runs
// whose measurements were smaller, so trends have something to show.
func synthetic() htmlreport.Input {
	cur := reporttest.Results(t0.Add(3*time.Hour), 1)
	var history []results.Results
	for i, scale := range []float64{0.7, 0.8, 0.9} {
		history = append(history, reporttest.Results(t0.Add(time.Duration(i)*time.Hour), scale))
	}
	history = append(history, cur)
	impl := &report.Implementation{Organization: "Example Org", Project: "example-admission", URL: "https://example.com", Version: "v1.2.3", Contact: []string{"@example"}}
	return htmlreport.Input{Results: cur, Report: report.Build(cur, impl), History: history}
}

func render(t *testing.T, in htmlreport.Input) (string, *html.Node) {
	t.Helper()
	return htmltest.Render(t, func(w io.Writer) error { return htmlreport.Render(w, in) })
}

func TestReportIsSelfContained(t *testing.T) {
	_, doc := render(t, synthetic())
	htmltest.Walk(doc, func(n *html.Node) {
		switch n.Data {
		case "script", "link", "iframe", "img", "object", "embed":
			t.Errorf("<%s> in a page that must need nothing else", n.Data)
		}
		for _, a := range n.Attr {
			if (a.Key == "src" || a.Key == "href") || strings.Contains(a.Val, "url(") || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q> may load or run something", n.Data, a.Key, a.Val)
			}
		}
	})
}

func TestReportShowsProfilesFailuresFirstPlotsAndTrends(t *testing.T) {
	in := synthetic()
	page, doc := render(t, in)

	var order []string // sections in page order
	profiles := map[string]string{}
	var failureCards, plots, trends, outsideDots, dots, journalRows, calls int
	var failureText string
	htmltest.Walk(doc, func(n *html.Node) {
		if n.Data == "h2" {
			order = append(order, htmltest.Attr(n, "id"))
		}
		if n.Data == "tr" && htmltest.HasClass(n, "profile") {
			var cells []string
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Data == "td" {
					cells = append(cells, strings.TrimSpace(htmltest.Text(c)))
				}
			}
			profiles[cells[0]] = cells[1]
		}
		if htmltest.HasClass(n, "failure-card") {
			failureCards++
			failureText = htmltest.Text(n)
			htmltest.Walk(n, func(c *html.Node) {
				if c.Data == "tr" && c.Parent.Data == "tbody" {
					journalRows++
				}
				if c.Data == "rect" && htmltest.HasClass(c, "call") {
					calls++
				}
			})
		}
		if htmltest.HasClass(n, "plot") {
			plots++
			htmltest.Walk(n, func(c *html.Node) {
				if c.Data == "circle" && htmltest.HasClass(c, "dot") {
					dots++
					if htmltest.HasClass(c, "outside") {
						outsideDots++
					}
				}
			})
		}
		if htmltest.HasClass(n, "trend") {
			trends++
		}
	})
	if strings.Join(order, ",") != ",failures,measurements,trends,coverage,cases" {
		t.Errorf("sections in order %v, want profiles then failures first", order)
	}
	want := map[string]string{"core": "failure", "extended": "success", "reference": "not-run"}
	for p, r := range want {
		if profiles[p] != r {
			t.Errorf("profile %s shows %q, want %q (all: %v)", p, profiles[p], r, profiles)
		}
	}
	if failureCards != 1 {
		t.Fatalf("%d failure cards, want 1", failureCards)
	}
	for _, s := range []string{"webhooks/ConfigurationPropagatesWithinBound", "replica 2 enforced the configuration after 1.4s", "suites/webhooks/propagation.go:61", "3 earlier calls omitted", "client went away while hanging", "harness wake-ups up to 42.5ms late"} {
		if !strings.Contains(failureText, s) {
			t.Errorf("the failure card lacks %q", s)
		}
	}
	if journalRows != 3 || calls != 3 {
		t.Errorf("journal: %d rows and %d bars, want 3 and 3", journalRows, calls)
	}
	// One plot per measurement name, one dot per value, red where out of
	// bounds (the replica that took 1.4s against a 1s bound).
	if plots != 4 || dots != 9 || outsideDots != 1 {
		t.Errorf("%d plots, %d dots, %d outside; want 4, 9, 1", plots, dots, outsideDots)
	}
	if trends != 4 {
		t.Errorf("%d trend charts, want 4 (every measurement was kept 4 times)", trends)
	}
	if !strings.Contains(page, "Example Org") || !strings.Contains(page, "v1.36.3") {
		t.Errorf("header lacks the implementation or Kubernetes version")
	}
	firstCase := strings.Index(page, `<tr class="case failed">`)
	firstPass := strings.Index(page, `<tr class="case passed">`)
	if firstCase < 0 || firstPass < firstCase {
		t.Errorf("the table of all cases does not list the failure first")
	}
}

func TestReportEscapesWhatSpecsReport(t *testing.T) {
	in := synthetic()
	in.Results.Specs[1].Message = `<script>alert(1)</script>`
	in.Results.Specs[1].Measurements[0].Labels = map[string]string{"replica": `"><script>x</script>`}
	in.Results.Specs[1].Journal.Calls[0].Webhook = `<img src=x>`
	page, doc := render(t, in)
	htmltest.Walk(doc, func(n *html.Node) {
		if n.Data == "script" || n.Data == "img" {
			t.Errorf("spec text became a <%s> element", n.Data)
		}
	})
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the message is not shown escaped")
	}
}

func TestReportWithoutHistoryOrMeasurements(t *testing.T) {
	res := results.Results{StartedAt: t0, FinishedAt: t0.Add(time.Second), Specs: []results.Spec{
		{Suite: "ordering", ShortName: "A", Name: "A case", Profile: "core", State: results.Passed},
	}}
	page, _ := render(t, htmlreport.Input{Results: res, Report: report.Build(res, nil)})
	for _, s := range []string{"implementation not stated", "No case recorded a measurement"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Contains(page, `id="trends"`) || strings.Contains(page, `id="failures"`) {
		t.Errorf("empty sections are shown")
	}
}

// A case that measures one thing several times contributes one point per
// run to its trend (the median), not one per sample.
func TestTrendHasOnePointPerRun(t *testing.T) {
	run := func(at time.Time, values ...float64) results.Results {
		s := results.Spec{Suite: "webhooks", ShortName: "P", Name: "P case", Profile: "core", State: results.Passed}
		for _, v := range values {
			s.Measurements = append(s.Measurements, results.Measurement{Name: "propagation", Value: v, Unit: "s"})
		}
		return results.Results{StartedAt: at, FinishedAt: at, Specs: []results.Spec{s}}
	}
	history := []results.Results{run(t0, 0.1, 0.9, 0.2), run(t0.Add(time.Hour), 0.3, 0.4, 0.5)}
	_, doc := render(t, htmlreport.Input{Results: history[1], Report: report.Build(history[1], nil), History: history})
	var points []string
	htmltest.Walk(doc, func(n *html.Node) {
		if n.Data == "circle" && htmltest.HasClass(n, "trend-dot") {
			points = append(points, htmltest.Text(n))
		}
	})
	if len(points) != 2 || !strings.Contains(points[0], ": 0.2 s") || !strings.Contains(points[1], ": 0.4 s") {
		t.Errorf("trend points %q, want the two runs' medians 0.2 and 0.4", points)
	}
}

// TestFieldCoverageTable: the coverage section shows the run's totals and a
// row per inventory path, exercised ones with the specs that reached them.
func TestFieldCoverageTable(t *testing.T) {
	in := synthetic()
	out, doc := render(t, in)
	c := in.Results.Coverage
	if c == nil || c.Exercised != 2 {
		t.Fatalf("the synthetic run's coverage = %+v, want 2 paths exercised", c)
	}
	if !strings.Contains(out, fmt.Sprintf("%d of the %d field paths in scope", c.Exercised, c.InScope)) {
		t.Errorf("the coverage section lacks the totals")
	}
	rows, checked := 0, 0
	htmltest.Walk(doc, func(n *html.Node) {
		if n.Data != "tr" || n.Parent == nil || n.Parent.Parent == nil || htmltest.Attr(n.Parent.Parent, "id") != "field-coverage" || n.Parent.Data != "tbody" {
			return
		}
		rows++
		text := htmltest.Text(n)
		switch {
		case strings.HasPrefix(text, "ValidatingWebhookConfiguration.webhooks[].name\n"):
			checked++
			if !htmltest.HasClass(n, "passed") || !strings.Contains(text, "MutatingBeforeValidatingOnCreate") || !strings.Contains(text, "set") {
				t.Errorf("the exercised row shows %q", text)
			}
		case strings.HasPrefix(text, "ValidatingWebhookConfiguration.webhooks[].timeoutSeconds\n"):
			checked++
			if !htmltest.HasClass(n, "failed") || !strings.Contains(text, "not exercised") {
				t.Errorf("an unexercised row shows %q", text)
			}
		}
	})
	if checked != 2 {
		t.Errorf("found %d of the 2 rows the test checks", checked)
	}
	if rows != len(c.Fields) {
		t.Errorf("%d coverage rows, want one per path (%d)", rows, len(c.Fields))
	}
}
