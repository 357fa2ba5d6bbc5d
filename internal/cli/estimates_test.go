package cli

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
)

// TestEverySpecHasAKeptEstimate: the schedule of a run with no earlier
// results (a fresh clone's first `make conformance`) starts the longest
// chains first by the kept estimates; a spec without one would be guessed
// at half a second per case, and a long one could start last. A spec added
// or renamed fails here until `make estimates` writes them again.
func TestEverySpecHasAKeptEstimate(t *testing.T) {
	e, err := parallel.DefaultEstimates()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	known := map[string]bool{}
	for _, s := range spec.All() {
		names = append(names, s.ShortName)
		known[s.ShortName] = true
	}
	if missing := e.Missing(names); len(missing) > 0 {
		t.Errorf("no kept estimate for %v: run make estimates", missing)
	}
	for name := range e.Seconds {
		if !known[name] {
			t.Errorf("a kept estimate for %s, which is no spec: run make estimates", name)
		}
	}
}
