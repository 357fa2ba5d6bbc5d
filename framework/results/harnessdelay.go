package results

import (
	"fmt"
	"strings"
	"time"
)

// HarnessDelayEntry is the name of the Ginkgo report entries that carry a
// case's harness delay: the latest the harness's own wake-ups came during
// the case, in milliseconds (internal/lateness).
const HarnessDelayEntry = "harness-delay"

// StarvedPrefix starts the sentence a failed case's message gets when the
// harness itself was starved during it.
const StarvedPrefix = "The harness itself was starved during this case"

// NoteStarvation appends to the message of every failed case during which
// the harness's wake-ups came later than bound a sentence saying so, with
// the measurements out of their bounds, so a reader can tell a busy machine
// from a slow implementation. Passing cases get no note: nothing needs
// explaining.
func NoteStarvation(specs []Spec, bound time.Duration) {
	for i := range specs {
		specs[i].noteStarvation(bound)
	}
}

func (s *Spec) noteStarvation(bound time.Duration) {
	if s.State != Failed || s.HarnessDelayMs == nil || strings.Contains(s.Message, StarvedPrefix) {
		return
	}
	late := time.Duration(*s.HarnessDelayMs * float64(time.Millisecond)).Round(time.Millisecond)
	if late <= bound {
		return
	}
	missed := "a timing bound may have been missed"
	var out []string
	for _, m := range s.Measurements {
		if !m.Within() {
			out = append(out, m.Name)
		}
	}
	if len(out) > 0 {
		missed = strings.Join(out, ", ") + " may be out of bounds"
	}
	note := fmt.Sprintf("%s: its wake-ups were up to %s late (bound harnessStarved %s), so %s because this machine is busy, not because the implementation is slow.",
		StarvedPrefix, late, bound, missed)
	if msg := strings.TrimRight(s.Message, "\n"); msg != "" {
		note = msg + "\n" + note
	}
	s.Message = note
}
