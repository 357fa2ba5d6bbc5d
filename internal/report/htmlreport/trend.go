package htmlreport

import (
	"fmt"
	"html/template"
	"math"
	"sort"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// MaxTrendRuns is how many of the latest kept runs a trend shows.
const MaxTrendRuns = 30

// Trend is one measurement name followed over the kept runs.
type Trend struct {
	Name   string
	Unit   string
	Runs   int
	Series []TrendSeries
	SVG    template.HTML
}

// TrendSeries is one line of a trend: one spec's values of one label set.
type TrendSeries struct {
	Label string
	Color string
}

var palette = []string{"#0969da", "#8250df", "#bf3989", "#1a7f37", "#9a6700", "#0550ae", "#cf222e", "#57606a"}

type seriesPoint struct {
	run   int
	value float64
	m     results.Measurement
}

// trends follows every measurement over runs (oldest first): one chart per
// measurement name that has at least one series with two values or more.
func trends(runs []results.Results) []Trend {
	if len(runs) > MaxTrendRuns {
		runs = runs[len(runs)-MaxTrendRuns:]
	}
	type key struct{ name, series string }
	series := map[key][]seriesPoint{}
	units := map[string]string{}
	for i, r := range runs {
		// A case may measure one thing several times (samples); a run
		// contributes their median, so each series has one point per run.
		perRun := map[key][]results.Measurement{}
		var order []key
		for _, s := range r.Specs {
			for _, m := range s.Measurements {
				label := s.ShortName
				if l := labelText(m.Labels); l != "" {
					label += " " + l
				}
				k := key{m.Name, label}
				if _, seen := perRun[k]; !seen {
					order = append(order, k)
				}
				perRun[k] = append(perRun[k], m)
				units[m.Name] = m.Unit
			}
		}
		for _, k := range order {
			m := median(perRun[k])
			series[k] = append(series[k], seriesPoint{run: i, value: m.Value, m: m})
		}
	}
	byName := map[string][]string{}
	for k, pts := range series {
		if len(pts) >= 2 {
			byName[k.name] = append(byName[k.name], k.series)
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Trend
	for _, name := range names {
		labels := byName[name]
		sort.Strings(labels)
		t := Trend{Name: name, Unit: units[name], Runs: len(runs)}
		var lines [][]seriesPoint
		for i, l := range labels {
			t.Series = append(t.Series, TrendSeries{Label: l, Color: palette[i%len(palette)]})
			lines = append(lines, series[key{name, l}])
		}
		t.SVG = trendChart(name, t.Unit, runs, t.Series, lines)
		out = append(out, t)
	}
	return out
}

func trendChart(name, unit string, runs []results.Results, legend []TrendSeries, lines [][]seriesPoint) template.HTML {
	const (
		width, height          = 900.0, 260.0
		left, right, top, axis = 70.0, 50.0, 14.0, 40.0
	)
	max := 0.0
	bounds, lowers := map[float64]bool{}, map[float64]bool{}
	for _, l := range lines {
		for _, p := range l {
			max = math.Max(max, p.value)
		}
		latest := l[len(l)-1].m
		if latest.Bound != nil {
			bounds[*latest.Bound] = true
			max = math.Max(max, *latest.Bound)
		}
		if latest.Lower != nil {
			lowers[*latest.Lower] = true
		}
	}
	ticks := niceTicks(max*1.05, 4)
	y := scale{max: ticks[len(ticks)-1], from: height - axis, to: top}
	xAt := func(run int) float64 {
		if len(runs) == 1 {
			return left
		}
		return left + (width-left-right)*float64(run)/float64(len(runs)-1)
	}
	s := newSVG(width, height, name+" over the kept runs")
	for _, t := range ticks {
		s.line(left, y.at(t), width-right, y.at(t), "grid")
		s.text(left-8, y.at(t)+4, "end", "tick", formatValue(t))
	}
	step := int(math.Ceil(float64(len(runs)) / 8))
	for i, r := range runs {
		if i%step == 0 || i == len(runs)-1 {
			s.text(xAt(i), height-axis+18, "middle", "tick", r.StartedAt.UTC().Format("01-02 15:04"))
		}
	}
	for b := range bounds {
		s.line(left, y.at(b), width-right, y.at(b), "bound dashed")
		s.text(width-right, y.at(b)-4, "end", "tick bound-label", "bound "+formatValue(b))
	}
	for b := range lowers {
		s.line(left, y.at(b), width-right, y.at(b), "lower dashed")
		s.text(width-right, y.at(b)-4, "end", "tick lower-label", "lower bound "+formatValue(b))
	}
	for i, l := range lines {
		color := legend[i].Color
		path := ""
		for j, p := range l {
			cmd := "L"
			if j == 0 {
				cmd = "M"
			}
			path += fmt.Sprintf("%s%s %s ", cmd, num(xAt(p.run)), num(y.at(p.value)))
		}
		s.add(`<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`, path, color)
		for _, p := range l {
			class := "trend-dot"
			if !p.m.Within() {
				class += " outside"
			}
			s.add(`<circle cx="%s" cy="%s" r="3.5" fill="%s" class="%s"><title>%s</title></circle>`,
				num(xAt(p.run)), num(y.at(p.value)), color, class,
				esc(fmt.Sprintf("%s: %s %s (run of %s)", legend[i].Label, formatValue(p.value), unit, runs[p.run].StartedAt.UTC().Format("2006-01-02 15:04:05"))))
		}
	}
	s.line(left, height-axis, width-right, height-axis, "axis")
	return s.html()
}

// median returns the measurement with the median value (the lower middle
// one for an even count), keeping its bounds.
func median(ms []results.Measurement) results.Measurement {
	sorted := append([]results.Measurement(nil), ms...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Value < sorted[j].Value })
	return sorted[(len(sorted)-1)/2]
}
