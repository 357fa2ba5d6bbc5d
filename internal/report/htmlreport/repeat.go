package htmlreport

import (
	"fmt"
	"html/template"
	"maps"
	"math"
	"sort"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// A run with --repeat N shows, per repeated case, its repetitions as a
// strip of squares (green passed, red failed, grey not run) with its pass
// rate and interval, and, per measurement of a repeated case, the spread
// of its samples: min, median and max, and every sample as a dot on one
// axis.

// repeated is a repeated case as the page shows it.
type repeated struct {
	Spec  results.Spec
	Strip template.HTML
}

// repeatedCases are the cases with repetitions, flaky and failed first.
func repeatedCases(ordered []results.Spec) []repeated {
	var out []repeated
	for _, s := range ordered {
		if len(s.Repetitions) > 0 {
			out = append(out, repeated{Spec: s, Strip: repetitionStrip(s)})
		}
	}
	return out
}

// repetitionStrip is one square per repetition, in order.
func repetitionStrip(s results.Spec) template.HTML {
	const size, gap = 14.0, 3.0
	width := float64(len(s.Repetitions))*(size+gap) + gap
	d := newSVG(width, size+2*gap, "repetitions of "+s.Name)
	for i, r := range s.Repetitions {
		class := "rep-" + string(r.State)
		title := fmt.Sprintf("repetition %d: %s (%.1fs)", r.Index, r.State, r.Duration)
		if r.State != results.Passed && r.Message != "" {
			title += ": " + firstLine(r.Message)
		}
		d.rect(gap+float64(i)*(size+gap), gap, size, size, class, title)
	}
	return d.html()
}

// Spread is the samples of one measurement of one repeated case (same name
// and labels but the repetition's).
type Spread struct {
	Case, Name, Labels, Unit string
	Count                    int
	Min, Median, Max         float64
	OutOfBound               int
	SVG                      template.HTML
}

// spreads groups the samples of repeated cases' measurements.
func spreads(specs []results.Spec) []Spread {
	var out []Spread
	for _, s := range specs {
		if len(s.Repetitions) == 0 {
			continue
		}
		groups := map[string][]results.Measurement{}
		var keys []string
		for _, m := range s.Measurements {
			labels := maps.Clone(m.Labels)
			delete(labels, results.RepetitionLabel)
			key := m.Name + "\x00" + labelText(labels)
			if _, ok := groups[key]; !ok {
				keys = append(keys, key)
			}
			groups[key] = append(groups[key], m)
		}
		for _, key := range keys {
			ms := groups[key]
			labels := maps.Clone(ms[0].Labels)
			delete(labels, results.RepetitionLabel)
			out = append(out, spreadOf(s.Suite+"/"+s.Name, labelText(labels), ms))
		}
	}
	return out
}

func spreadOf(caseName, labels string, ms []results.Measurement) Spread {
	values := make([]float64, len(ms))
	sp := Spread{Case: caseName, Name: ms[0].Name, Labels: labels, Unit: ms[0].Unit, Count: len(ms)}
	for i, m := range ms {
		values[i] = m.Value
		if !m.Within() {
			sp.OutOfBound++
		}
	}
	sort.Float64s(values)
	sp.Min, sp.Max = values[0], values[len(values)-1]
	if n := len(values); n%2 == 1 {
		sp.Median = values[n/2]
	} else {
		sp.Median = (values[n/2-1] + values[n/2]) / 2
	}
	sp.SVG = spreadStrip(sp, ms)
	return sp
}

// spreadStrip puts every sample on one axis from 0 to the largest of the
// samples and the upper bound, the bound as a red tick, the median as a
// dark tick.
func spreadStrip(sp Spread, ms []results.Measurement) template.HTML {
	const width, height, left, right = 280.0, 26.0, 6.0, 6.0
	top := sp.Max
	for _, m := range ms {
		if m.Bound != nil {
			top = math.Max(top, *m.Bound)
		}
	}
	if top <= 0 {
		top = 1
	}
	sc := scale{max: top * 1.05, from: left, to: width - right}
	d := newSVG(width, height, fmt.Sprintf("%s: %d samples", sp.Name, sp.Count))
	d.line(left, height/2, width-right, height/2, "axis")
	if b := ms[0].Bound; b != nil {
		d.line(sc.at(*b), 3, sc.at(*b), height-3, "bound")
	}
	d.line(sc.at(sp.Median), 4, sc.at(sp.Median), height-4, "median")
	for _, m := range ms {
		class := "within"
		if !m.Within() {
			class = "outside"
		}
		d.circle(sc.at(m.Value), height/2, 4, "dot "+class, fmt.Sprintf("repetition %s: %s %s", m.Labels[results.RepetitionLabel], formatValue(m.Value), m.Unit))
	}
	return d.html()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
