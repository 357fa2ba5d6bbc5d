package matrix_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
	"github.com/admission-conformance/admission-conformance/internal/report/htmltest"
	"github.com/admission-conformance/admission-conformance/internal/report/matrix"
)

// versionMatrix is three synthetic runs, one per Kubernetes version, as
// hack/versions lays them: 1.37 fails a case the others pass and answers 25
// times slower; 1.38 could not be built.
func versionMatrix(name0 string) matrix.Matrix {
	runs := versions()
	runs[0].Name = name0
	runs[2].Results.Specs[0].State, runs[2].Results.Specs[0].Message = results.Failed, "broken on 1.37"
	runs[2].Results.Specs[0].Measurements[0].Value *= 25
	runs[2].Results.Summarize(fields.Cover)
	runs = append(runs, matrix.Input{Name: "v1.38.0", ExitCode: matrix.ExitError, Error: "build failed: no template"})
	return matrix.Build(runs, matrix.Header{Title: "Admission conformance across Kubernetes versions", Started: t0, Thresholds: compare.DefaultThresholds()})
}

func renderPage(t *testing.T, m matrix.Matrix) (string, *html.Node) {
	t.Helper()
	return htmltest.Render(t, func(w io.Writer) error { return matrix.Render(w, m) })
}

// rows returns the text of the cells of the table with id, header first.
func rows(doc *html.Node, id string) [][]string {
	var out [][]string
	htmltest.Walk(doc, func(n *html.Node) {
		if n.Data != "table" || htmltest.Attr(n, "id") != id {
			return
		}
		htmltest.Walk(n, func(tr *html.Node) {
			if tr.Data != "tr" {
				return
			}
			var cells []string
			for c := tr.FirstChild; c != nil; c = c.NextSibling {
				if c.Data == "td" || c.Data == "th" {
					cells = append(cells, strings.Join(strings.Fields(htmltest.Text(c)), " "))
				}
			}
			out = append(out, cells)
		})
	})
	return out
}

func TestPageShowsEveryCaseAndMeasurementPerVersion(t *testing.T) {
	page, doc := renderPage(t, versionMatrix(""))

	targets := rows(doc, "targets")
	if len(targets) != 5 || targets[1][0] != "v1.35.4" || !strings.HasPrefix(targets[3][2], "failed exit 1") || targets[3][8] != "3 / 2 / 1 / 2" {
		t.Errorf("targets table %q", targets)
	}
	// The version that could not be built: its state and why, no cells.
	if got := targets[4]; got[0] != "v1.38.0" || !strings.HasPrefix(got[2], "error exit 2") || !strings.Contains(got[2], "build failed: no template") || got[8] != "" {
		t.Errorf("unbuilt version %q", got)
	}
	cases := rows(doc, "cases")
	if len(cases) != 8 || strings.Join(cases[0], "|") != "case|profile|v1.35.4|v1.36.3|v1.37.2|v1.38.0" {
		t.Fatalf("cases table %q", cases)
	}
	// The case whose state differs comes first.
	if !strings.HasPrefix(cases[1][0], "ordering/MutatingBeforeValidatingOnCreate") || strings.Join(cases[1][2:], "|") != "passed|passed|failed|-" {
		t.Errorf("first case row %q", cases[1])
	}
	measurements := rows(doc, "measurements")
	if len(measurements) != 10 || strings.Join(measurements[0], "|") != "case|measurement|unit|bounds|v1.35.4|v1.36.3|v1.37.2|v1.38.0|difference" {
		t.Fatalf("measurements table %q", measurements)
	}
	if got := strings.Join(measurements[1][1:8], "|"); got != "mutating-answer-to-validating-call|ms||0.8|0.8|20|-" || !strings.Contains(measurements[1][8], "+2400%") {
		t.Errorf("first measurement row %q", measurements[1])
	}
	var differs, outside int
	htmltest.Walk(doc, func(n *html.Node) {
		if n.Data == "tr" && htmltest.HasClass(n, "differs") {
			differs++
		}
		if n.Data == "td" && htmltest.HasClass(n, "out") {
			outside++
		}
	})
	if differs != 2 || outside != 3 {
		t.Errorf("%d highlighted rows, %d values out of bounds; want 2, 3 (replica 2 in every run)", differs, outside)
	}
	for _, want := range []string{"1 .. 1.5", "&lt;= 1000", `title="failed: broken on 1.37"`, "started 2026-05-01 10:00:00 UTC",
		"1 of 7 spec cases differ", "1 cases no target selected are left out", "<title>Admission conformance across Kubernetes versions</title>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestPageOfRunsIsSelfContainedAndEscapes(t *testing.T) {
	m := versionMatrix(`<script>alert(1)</script>`)
	cell := m.Cases[0].Cells[m.Targets[0].Name]
	cell.Message = `"><img src=x>`
	m.Cases[0].Cells[m.Targets[0].Name] = cell
	m.Measurements[0].Labels = `{replica="><script>x</script>}`
	m.Targets[3].Error = "<iframe>"
	page, doc := renderPage(t, m)
	htmltest.Walk(doc, func(n *html.Node) {
		switch n.Data {
		case "script", "link", "iframe", "img", "object", "embed":
			t.Errorf("<%s> in a page that must need nothing else", n.Data)
		}
		for _, a := range n.Attr {
			if a.Key == "src" || strings.Contains(a.Val, "url(") || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q> may load or run something", n.Data, a.Key, a.Val)
			}
			if a.Key == "href" && (strings.Contains(a.Val, ":") || strings.HasPrefix(a.Val, "/")) {
				t.Errorf("<%s href=%q> leaves the matrix's dir", n.Data, a.Val)
			}
		}
	})
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("a run name is not escaped")
	}
}

func TestWriteHTMLOfAnEmptyMatrix(t *testing.T) {
	path := filepath.Join(t.TempDir(), matrix.HTMLName)
	if err := matrix.WriteHTML(path, matrix.Build(nil, matrix.Header{Thresholds: compare.DefaultThresholds()})); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), matrix.DefaultTitle) || !strings.Contains(string(data), "No case recorded a measurement") {
		t.Errorf("empty matrix page: %v\n%s", err, data)
	}
}
