package absence_test

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/internal/absence"
)

// After a case waited the whole bound for an observation that never came,
// the next cases needing it wait only as long as a working cluster takes,
// and fail naming the first one's cause; the first observation that does
// come clears the note.
func Example() {
	r := absence.Local()
	_ = r.Note("kubelet rejection events", "no event in 30s")
	cause, ok := r.Noted("kubelet rejection events")
	fmt.Println(ok, cause)
	r.Clear("kubelet rejection events")
	_, ok = r.Noted("kubelet rejection events")
	fmt.Println(ok)
	// Output:
	// true no event in 30s
	// false
}
