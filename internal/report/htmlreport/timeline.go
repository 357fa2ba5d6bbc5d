package htmlreport

import (
	"fmt"
	"html/template"
	"math"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// journalTimeline draws the calls of a failed case: one lane per webhook in
// the order the webhooks were first called, one bar per call from receipt
// to answer (or to when it was given up), coloured by outcome.
func journalTimeline(j results.JournalExcerpt) template.HTML {
	if len(j.Calls) == 0 {
		return ""
	}
	const (
		width, left, right = 900.0, 300.0, 20.0
		top, lane, axis    = 8.0, 24.0, 30.0
	)
	var webhooks []string
	laneOf := map[string]int{}
	end := 0.0
	for _, c := range j.Calls {
		name := c.Webhook
		if name == "" {
			name = c.Path
		}
		if _, ok := laneOf[name]; !ok {
			laneOf[name] = len(webhooks)
			webhooks = append(webhooks, name)
		}
		end = math.Max(end, c.ReceivedMs+c.DurationMs)
	}
	ticks := niceTicks(end*1.02, 6)
	sc := scale{max: ticks[len(ticks)-1], from: left, to: width - right}
	bottom := top + lane*float64(len(webhooks))
	s := newSVG(width, bottom+axis, "webhook calls during the case")
	for _, t := range ticks {
		s.line(sc.at(t), top, sc.at(t), bottom, "grid")
		s.text(sc.at(t), bottom+16, "middle", "tick", formatValue(t))
	}
	s.text(width-right, bottom+28, "end", "tick", "ms since the case started")
	for i, w := range webhooks {
		s.text(left-8, top+lane*float64(i)+lane/2+4, "end", "label", truncate(w, 44))
	}
	for _, c := range j.Calls {
		name := c.Webhook
		if name == "" {
			name = c.Path
		}
		y := top + lane*float64(laneOf[name]) + 5
		x := sc.at(c.ReceivedMs)
		w := math.Max(sc.at(c.ReceivedMs+c.DurationMs)-x, 3)
		title := fmt.Sprintf("#%d +%sms %s %s %s/%s: %s in %sms", c.Seq, formatValue(c.ReceivedMs), c.Phase, c.Operation,
			c.Namespace, c.Name, c.Outcome(), formatValue(c.DurationMs))
		if c.Err != "" {
			title += ": " + c.Err
		}
		s.rect(x, y, w, lane-10, "call "+callClass(c), title)
	}
	s.line(left, bottom, width-right, bottom, "axis")
	return s.html()
}

// callClass names a call's outcome for colouring.
func callClass(c results.JournalCall) string {
	switch {
	case c.InFlight:
		return "inflight"
	case !c.Answered:
		return "noanswer"
	case c.Action != "Allow" && c.Action != "Deny" && c.Action != "Patch":
		return "errored"
	case c.Allowed:
		return "allowed"
	default:
		return "denied"
	}
}
