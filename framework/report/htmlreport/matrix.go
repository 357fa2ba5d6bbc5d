package htmlreport

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/report/compare"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// MatrixFileName is the page of a matrix of runs (compare --matrix --html,
// make conformance-versions).
const MatrixFileName = "matrix.html"

// MatrixInput is what the matrix page shows.
type MatrixInput struct {
	Matrix compare.Matrix
	// Title heads the page; empty: "Admission conformance across runs".
	Title string
	// Unavailable are runs that gave no results (a Kubernetes version the
	// harness could not be built for), each with why; they have no column.
	Unavailable []Unavailable
	// Generated is when the matrix was made; zero: not shown.
	Generated time.Time
}

// Unavailable is a run without results.
type Unavailable struct {
	Name   string
	Reason string
}

//go:embed matrix.html.tmpl
var matrixTemplate string

var matrixPage = template.Must(template.New("matrix").Funcs(template.FuncMap{
	"seconds": func(f float64) string {
		return time.Duration(f * float64(time.Second)).Round(time.Second).String()
	},
	"date":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"value":   compare.FormatValue,
	"percent": func(f float64) string { return strconv.FormatFloat(f*100, 'f', 0, 64) },
	"bounds":  compare.FormatBounds,
	"state": func(s results.State) string {
		if s == "" {
			return "absent"
		}
		return string(s)
	},
	"message": func(c compare.CaseRow, i int) string {
		if i < len(c.Messages) {
			return c.Messages[i]
		}
		return ""
	},
	"result": func(s results.Summary) string {
		if s.Failed > 0 {
			return "failed"
		}
		return "passed"
	},
}).Parse(matrixTemplate))

type matrixView struct {
	Style        template.CSS
	Title        string
	M            compare.Matrix
	Cases        []compare.CaseRow
	Measurements []compare.MeasurementRow
	Unavailable  []Unavailable
	Generated    time.Time
}

// RenderMatrix writes the matrix page to w: one self-contained file like
// report.html, with the runs, every case's state per run and every
// measurement per run with its bounds; rows that differ between runs come
// first and are highlighted.
func RenderMatrix(w io.Writer, in MatrixInput) error {
	v := matrixView{
		Style:        template.CSS(style),
		Title:        in.Title,
		M:            in.Matrix,
		Cases:        in.Matrix.CasesDifferingFirst(),
		Measurements: in.Matrix.MeasurementsDifferingFirst(),
		Unavailable:  in.Unavailable,
		Generated:    in.Generated,
	}
	if v.Title == "" {
		v.Title = "Admission conformance across runs"
	}
	var buf bytes.Buffer
	if err := matrixPage.Execute(&buf, v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteMatrix writes matrix.html into dir and returns its path.
func WriteMatrix(dir string, in MatrixInput) (string, error) {
	path := filepath.Join(dir, MatrixFileName)
	return path, WriteMatrixFile(path, in)
}

// WriteMatrixFile writes the matrix page to path.
func WriteMatrixFile(path string, in MatrixInput) error {
	var buf bytes.Buffer
	if err := RenderMatrix(&buf, in); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
