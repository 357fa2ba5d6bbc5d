package htmlreport

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// svg accumulates one inline SVG drawing. Every text that comes from
// results goes through esc, so a spec name cannot inject markup.
type svg struct {
	b             strings.Builder
	width, height float64
}

func newSVG(width, height float64, title string) *svg {
	s := &svg{width: width, height: height}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img"><title>%s</title>`,
		num(width), num(height), num(width), num(height), esc(title))
	return s
}

func (s *svg) add(format string, args ...any) { fmt.Fprintf(&s.b, format, args...) }

func (s *svg) line(x1, y1, x2, y2 float64, class string) {
	s.add(`<line x1="%s" y1="%s" x2="%s" y2="%s" class="%s"/>`, num(x1), num(y1), num(x2), num(y2), class)
}

func (s *svg) rect(x, y, w, h float64, class, title string) {
	s.add(`<rect x="%s" y="%s" width="%s" height="%s" class="%s">`, num(x), num(y), num(math.Max(w, 0)), num(h), class)
	if title != "" {
		s.add(`<title>%s</title>`, esc(title))
	}
	s.add(`</rect>`)
}

func (s *svg) circle(x, y, r float64, class, title string) {
	s.add(`<circle cx="%s" cy="%s" r="%s" class="%s"><title>%s</title></circle>`, num(x), num(y), num(r), class, esc(title))
}

func (s *svg) text(x, y float64, anchor, class, text string) {
	s.add(`<text x="%s" y="%s" text-anchor="%s" class="%s">%s</text>`, num(x), num(y), anchor, class, esc(text))
}

func (s *svg) html() template.HTML {
	return template.HTML(s.b.String() + "</svg>") // #nosec: every text was escaped
}

func esc(s string) string { return html.EscapeString(s) }

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// scale maps [0, max] onto [from, to] pixels.
type scale struct{ max, from, to float64 }

func (sc scale) at(v float64) float64 {
	if sc.max <= 0 {
		return sc.from
	}
	return sc.from + (sc.to-sc.from)*math.Max(0, v)/sc.max
}

// niceTicks returns about n round tick values from 0 that cover max.
func niceTicks(max float64, n int) []float64 {
	if max <= 0 || math.IsNaN(max) || math.IsInf(max, 0) {
		return []float64{0, 1}
	}
	raw := max / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	for v := 0.0; ; v += step {
		ticks = append(ticks, v)
		if v >= max {
			break
		}
	}
	return ticks
}

// formatValue prints a value with the precision it needs.
func formatValue(v float64) string {
	return strconv.FormatFloat(v, 'g', 4, 64)
}
