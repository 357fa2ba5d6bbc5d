package htmlreport_test

import (
	"bytes"
	"github.com/admission-conformance/admission-conformance/framework/report/htmltest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/admission-conformance/admission-conformance/framework/report/compare"
	"github.com/admission-conformance/admission-conformance/framework/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/framework/report/reporttest"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// versionMatrix is three synthetic runs, one per Kubernetes version: 1.37
// fails a case the others pass and answers 25 times slower.
func versionMatrix() htmlreport.MatrixInput {
	var runs []compare.Run
	for i, v := range []string{"v1.35.4", "v1.36.3", "v1.37.2"} {
		res := reporttest.Results(t0.Add(time.Duration(i)*time.Hour), 1)
		res.Cluster.KubernetesVersion = v
		runs = append(runs, compare.Run{Source: "/a/" + v + "/results.json", Results: res})
	}
	runs[2].Results.Specs[0].State, runs[2].Results.Specs[0].Message = results.Failed, "broken on 1.37"
	runs[2].Results.Specs[0].Measurements[0].Value *= 25
	runs[2].Results.Summarize()
	return htmlreport.MatrixInput{
		Matrix:      compare.NewMatrix(runs, compare.DefaultThresholds()),
		Title:       "Admission conformance across Kubernetes versions",
		Unavailable: []htmlreport.Unavailable{{Name: "v1.38.0", Reason: "build failed: no template"}},
		Generated:   t0,
	}
}

func renderMatrix(t *testing.T, in htmlreport.MatrixInput) (string, *html.Node) {
	t.Helper()
	var buf bytes.Buffer
	if err := htmlreport.RenderMatrix(&buf, in); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), doc
}

// cells returns the text of a row's cells.
func cells(tr *html.Node) []string {
	var out []string
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Data == "td" || c.Data == "th" {
			out = append(out, strings.TrimSpace(text(c)))
		}
	}
	return out
}

// rows returns the rows of the table with id, header first.
func rows(doc *html.Node, id string) [][]string {
	var out [][]string
	htmltest.Walk(doc, func(n *html.Node) {
		if n.Data == "table" && htmltest.Attr(n, "id") == id {
			htmltest.Walk(n, func(tr *html.Node) {
				if tr.Data == "tr" {
					out = append(out, cells(tr))
				}
			})
		}
	})
	return out
}

func TestMatrixPageShowsEveryCaseAndMeasurementPerVersion(t *testing.T) {
	page, doc := renderMatrix(t, versionMatrix())

	runs := rows(doc, "matrix-runs")
	if len(runs) != 4 || runs[1][0] != "v1.35.4" || runs[3][1] != "failed" || runs[3][7] != "2" {
		t.Errorf("runs table %q", runs)
	}
	cases := rows(doc, "matrix-cases")
	if len(cases) != 9 || strings.Join(cases[0], "|") != "Spec case|v1.35.4|v1.36.3|v1.37.2" {
		t.Fatalf("cases table %q", cases)
	}
	// The case whose state differs comes first.
	if !strings.HasPrefix(cases[1][0], "ordering/MutatingBeforeValidatingOnCreate") || strings.Join(cases[1][1:], "|") != "passed|passed|failed" {
		t.Errorf("first case row %q", cases[1])
	}
	measurements := rows(doc, "matrix-measurements")
	if len(measurements) != 10 || strings.Join(measurements[0], "|") != "Measurement|Unit|Bounds|v1.35.4|v1.36.3|v1.37.2|Difference" {
		t.Fatalf("measurements table %q", measurements)
	}
	if got := strings.Join(measurements[1][1:6], "|"); got != "ms||0.8|0.8|20" || !strings.Contains(measurements[1][6], "+2400%") {
		t.Errorf("first measurement row %q", measurements[1])
	}
	var differs, outside, unavailable int
	htmltest.Walk(doc, func(n *html.Node) {
		if n.Data == "tr" && hasClass(n, "differs") {
			differs++
		}
		if n.Data == "td" && hasClass(n, "outside") {
			outside++
		}
		if hasClass(n, "unavailable") {
			unavailable++
			if !strings.Contains(text(n), "build failed: no template") {
				t.Errorf("unavailable run %q", text(n))
			}
		}
	})
	if differs != 2 || outside != 3 || unavailable != 1 {
		t.Errorf("%d highlighted rows, %d values out of bounds, %d unavailable runs; want 2, 3 (replica 2 in every run), 1", differs, outside, unavailable)
	}
	for _, want := range []string{"1 .. 1.5", "&lt;= 1000", `title="broken on 1.37"`, "made 2026-05-01 10:00:00 UTC", "1 of 8 spec cases differ"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestMatrixPageIsSelfContainedAndEscapes(t *testing.T) {
	in := versionMatrix()
	in.Matrix.Runs[0].Name = `<script>alert(1)</script>`
	in.Matrix.Cases[0].Messages = []string{`"><img src=x>`, "", ""}
	in.Matrix.Measurements[0].Labels = `{replica="><script>x</script>}`
	in.Unavailable[0].Reason = "<iframe>"
	page, doc := renderMatrix(t, in)
	htmltest.Walk(doc, func(n *html.Node) {
		switch n.Data {
		case "script", "link", "iframe", "img", "object", "embed":
			t.Errorf("<%s> in a page that must need nothing else", n.Data)
		}
		for _, a := range n.Attr {
			if a.Key == "src" || a.Key == "href" || strings.Contains(a.Val, "url(") || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q> may load or run something", n.Data, a.Key, a.Val)
			}
		}
	})
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("a run name is not escaped")
	}
}

func TestWriteMatrix(t *testing.T) {
	dir := t.TempDir()
	path, err := htmlreport.WriteMatrix(dir, htmlreport.MatrixInput{Matrix: compare.NewMatrix(nil, compare.DefaultThresholds())})
	if err != nil || path != filepath.Join(dir, htmlreport.MatrixFileName) {
		t.Fatalf("%s %v", path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(data), "Admission conformance across runs") || !strings.Contains(string(data), "No case recorded a measurement") {
		t.Errorf("empty matrix page: %v\n%s", err, data)
	}
}
