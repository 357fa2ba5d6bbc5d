package results

import (
	"fmt"
	"sort"
	"strings"
)

// Text prints the excerpt as plain lines, one per call.
func (j JournalExcerpt) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "webhook calls during the case (%d", len(j.Calls))
	if j.Omitted > 0 {
		fmt.Fprintf(&b, ", %d earlier omitted", j.Omitted)
	}
	b.WriteString("):\n")
	if len(j.Calls) == 0 {
		b.WriteString("  none: no fake webhook was called\n")
	}
	for _, c := range j.Calls {
		fmt.Fprintf(&b, "  #%d +%.1fms %s %s %s %s/%s", c.Seq, c.ReceivedMs, c.Phase, c.Webhook, c.Operation, c.Namespace, c.Name)
		if c.DryRun {
			b.WriteString(" (dry run)")
		}
		fmt.Fprintf(&b, " -> %s", c.Outcome())
		if !c.InFlight {
			fmt.Fprintf(&b, " in %.1fms", c.DurationMs)
		}
		if c.Err != "" {
			b.WriteString(": " + c.Err)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Outcome says what became of the call in a few words.
func (c JournalCall) Outcome() string {
	switch {
	case c.InFlight:
		return "still in flight when the case ended"
	case c.Action == "":
		return "not handled (bad request or no endpoint on the path)"
	case !c.Answered:
		return c.Action + ", no answer"
	case c.Action != "Allow" && c.Action != "Deny" && c.Action != "Patch":
		return c.Action + ", answered" // not a well-formed verdict on purpose
	case c.Allowed:
		return c.Action + ", allowed"
	default:
		return c.Action + ", denied"
	}
}

// String prints the measurement on one line: name, value, unit, labels,
// bounds, and whether it is out of them.
func (m Measurement) String() string {
	line := fmt.Sprintf("%s = %g %s", m.Name, m.Value, m.Unit)
	if len(m.Labels) > 0 {
		keys := make([]string, 0, len(m.Labels))
		for k := range m.Labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		labels := make([]string, len(keys))
		for i, k := range keys {
			labels[i] = k + "=" + m.Labels[k]
		}
		line += " {" + strings.Join(labels, ",") + "}"
	}
	if m.Lower != nil {
		line += fmt.Sprintf(" lower %g", *m.Lower)
	}
	if m.Bound != nil {
		line += fmt.Sprintf(" bound %g", *m.Bound)
	}
	if !m.Within() {
		line += " OUT OF BOUNDS"
	}
	return line
}

// HarnessDelayText says how late the harness's own wake-ups came during the
// case, or "" when that was not measured.
func (s Spec) HarnessDelayText() string {
	if s.HarnessDelayMs == nil {
		return ""
	}
	return fmt.Sprintf("harness wake-ups up to %.1fms late", *s.HarnessDelayMs)
}
