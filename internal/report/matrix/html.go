package matrix

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed matrix.html.tmpl
var pageTemplate string

//go:embed style.css
var style string

// DefaultTitle heads a page whose matrix has no title.
const DefaultTitle = "Admission conformance matrix"

var page = template.Must(template.New("matrix").Funcs(template.FuncMap{
	"date": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
	"seconds": func(f float64) string {
		return time.Duration(f * float64(time.Second)).Round(time.Second).String()
	},
	"value":   FormatValue,
	"bounds":  FormatBounds,
	"percent": func(f float64) string { return strconv.FormatFloat(f*100, 'f', 0, 64) },
	// The case's own words: its name without the spec's short name.
	"caseText": func(c Case) string { return strings.TrimSpace(strings.TrimPrefix(c.Name, c.ShortName)) },
	"cell": func(c Case, target string) *Cell {
		if cell, ok := c.Cells[target]; ok {
			return &cell
		}
		return nil
	},
	"val": func(r MeasurementRow, target string) *Value {
		if v, ok := r.Values[target]; ok {
			return &v
		}
		return nil
	},
	"report": func(dir string) string { return path.Join(dir, "report.html") },
	"short": func(s string) string {
		if r := []rune(s); len(r) > 160 {
			return string(r[:157]) + "..."
		}
		return s
	},
}).Parse(pageTemplate))

// view is the page's data.
type view struct {
	Style    template.CSS
	Title    string
	M        Matrix
	Duration string
	// Cases and Measurements are the rows, those that differ first.
	Cases        []Case
	Measurements []MeasurementRow
	// Failures are the failed cells, for the table under the grid.
	Failures []failedCell
	// Regressed counts regressed cells over all targets.
	Regressed int
}

type failedCell struct {
	Target, Case, Message string
}

// Render writes matrix.html: inline CSS, no script, nothing fetched; every
// text from results is escaped by html/template.
func Render(w io.Writer, m Matrix) error {
	v := view{Style: template.CSS(style), Title: m.Title, M: m,
		Cases: m.CasesDifferingFirst(), Measurements: m.MeasurementsDifferingFirst()}
	if v.Title == "" {
		v.Title = DefaultTitle
	}
	if d := m.Duration(); d > 0 {
		v.Duration = d.Round(time.Second).String()
	}
	for _, t := range m.Targets {
		v.Regressed += t.Regressions
	}
	for _, c := range v.Cases {
		for _, t := range m.Targets {
			if cell, ok := c.Cells[t.Name]; ok && cell.State == "failed" {
				v.Failures = append(v.Failures, failedCell{Target: t.Name, Case: c.Suite + "/" + c.ShortName, Message: cell.Message})
			}
		}
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
