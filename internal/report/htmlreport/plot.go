package htmlreport

import (
	"fmt"
	"html/template"
	"math"
	"sort"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// point is one measured value placed in a plot.
type point struct {
	// group is the case the value belongs to, shown as a heading above its
	// values when a plot holds values of several cases; empty otherwise.
	group string
	label string // what tells it apart within its group: its labels
	m     results.Measurement
}

// Plot is one measurement name's values against their bounds.
type Plot struct {
	Name       string
	Unit       string
	Count      int
	OutOfBound int
	SVG        template.HTML
}

// measurementPlots groups every measurement of the run by name, one plot
// per name, in name order.
func measurementPlots(res results.Results) []Plot {
	groups := map[string][]point{}
	casesOf := map[string]map[string]bool{}
	for _, s := range res.Specs {
		caseName := s.Suite + "/" + s.Name
		for _, m := range s.Measurements {
			label := labelText(m.Labels)
			if label == "" {
				label = s.ShortName
			}
			groups[m.Name] = append(groups[m.Name], point{group: caseName, label: label, m: m})
			if casesOf[m.Name] == nil {
				casesOf[m.Name] = map[string]bool{}
			}
			casesOf[m.Name][caseName] = true
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	var plots []Plot
	for _, name := range names {
		points := groups[name]
		if len(casesOf[name]) == 1 {
			for i := range points {
				points[i].group = ""
			}
		}
		p := Plot{Name: name, Unit: points[0].m.Unit, Count: len(points)}
		for _, pt := range points {
			if !pt.m.Within() {
				p.OutOfBound++
			}
		}
		p.SVG = boundsPlot(name, points)
		plots = append(plots, p)
	}
	return plots
}

// boundsPlot draws one row per value: the allowed range as a band, the
// upper bound as a solid tick, the lower bound as a dashed tick, and the
// value as a dot, green within its bounds and red outside.
func boundsPlot(name string, points []point) template.HTML {
	const (
		width, left, right = 900.0, 320.0, 100.0
		top, row, axis     = 12.0, 26.0, 44.0
	)
	// Rows: a heading row wherever the case changes, then its values.
	type line struct {
		heading string
		p       *point
	}
	var rows []line
	for i := range points {
		if g := points[i].group; g != "" && (i == 0 || points[i-1].group != g) {
			rows = append(rows, line{heading: g})
		}
		rows = append(rows, line{p: &points[i]})
	}
	max := 0.0
	for _, p := range points {
		max = math.Max(max, p.m.Value)
		if p.m.Bound != nil {
			max = math.Max(max, *p.m.Bound)
		}
		if p.m.Lower != nil {
			max = math.Max(max, *p.m.Lower)
		}
	}
	ticks := niceTicks(max*1.05, 5)
	sc := scale{max: ticks[len(ticks)-1], from: left, to: width - right}
	height := top + row*float64(len(rows)) + axis
	s := newSVG(width, height, name+" against its bounds")
	bottom := top + row*float64(len(rows))
	for _, t := range ticks {
		x := sc.at(t)
		s.line(x, top-4, x, bottom, "grid")
		s.text(x, bottom+16, "middle", "tick", formatValue(t))
	}
	s.text(width-right, bottom+32, "end", "tick", "values in "+points[0].m.Unit)
	for i, r := range rows {
		y := top + row*float64(i) + row/2
		if r.p == nil {
			s.text(8, y+4, "start", "group", truncate(r.heading, 140))
			continue
		}
		p := *r.p
		m := p.m
		if m.Lower != nil || m.Bound != nil {
			lo, hi := 0.0, sc.max
			if m.Lower != nil {
				lo = *m.Lower
			}
			if m.Bound != nil {
				hi = *m.Bound
			}
			s.rect(sc.at(lo), y-8, sc.at(hi)-sc.at(lo), 16, "allowed", fmt.Sprintf("allowed: %s to %s %s", formatValue(lo), boundText(m.Bound), m.Unit))
		}
		if m.Lower != nil {
			s.line(sc.at(*m.Lower), y-11, sc.at(*m.Lower), y+11, "lower")
		}
		if m.Bound != nil {
			s.line(sc.at(*m.Bound), y-11, sc.at(*m.Bound), y+11, "bound")
		}
		class, verdict := "within", ""
		if !m.Within() {
			class, verdict = "outside", " (out of bounds)"
		}
		s.line(left, y, sc.at(m.Value), y, "stem "+class)
		s.circle(sc.at(m.Value), y, 5.5, "dot "+class, fmt.Sprintf("%s %s = %s %s%s", p.label, m.Name, formatValue(m.Value), m.Unit, verdict))
		s.text(left-10, y+4, "end", "label", truncate(p.label, 46))
		s.text(width-right+8, y+4, "start", "value "+class, formatValue(m.Value)+" "+m.Unit+map[bool]string{true: "", false: " ✗"}[m.Within()])
	}
	s.line(left, bottom, width-right, bottom, "axis")
	return s.html()
}

func boundText(b *float64) string {
	if b == nil {
		return "∞"
	}
	return formatValue(*b)
}

func labelText(labels map[string]string) string {
	if len(labels) == 0 {
		return ""
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += ", "
		}
		out += k + "=" + labels[k]
	}
	return out
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
