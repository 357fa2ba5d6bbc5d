package parallel

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// EstimatesVersion identifies the estimates file's format.
const EstimatesVersion = "admission-conformance.io/estimates/v1"

// Estimates is how long each spec's cases took together in a full default
// run (seconds, by short name): what a run schedules by when no earlier run
// of its report dir timed a spec, such as the first `make conformance` of a
// fresh clone. The schedule starts the longest chains first; with every
// spec guessed alike, the longest measurement spec could start last and hold
// the whole run up. `make estimates` writes it from a run's results.
type Estimates struct {
	APIVersion string             `json:"apiVersion"`
	Seconds    map[string]float64 `json:"seconds"`
}

//go:embed estimates.json
var estimatesFile []byte

// DefaultEstimates is the estimates file kept in the repository.
var DefaultEstimates = sync.OnceValues(func() (Estimates, error) {
	var e Estimates
	if err := json.Unmarshal(estimatesFile, &e); err != nil {
		return e, fmt.Errorf("internal/parallel/estimates.json: %w", err)
	}
	if e.APIVersion != EstimatesVersion {
		return e, fmt.Errorf("internal/parallel/estimates.json is %q, want %q", e.APIVersion, EstimatesVersion)
	}
	return e, nil
})

// EstimatesOf sums the durations of the cases that ran in res, by spec.
func EstimatesOf(res results.Results) Estimates {
	e := Estimates{APIVersion: EstimatesVersion, Seconds: map[string]float64{}}
	for _, s := range res.Specs {
		if s.State == results.Passed || s.State == results.Failed || s.State == results.Flaky {
			e.Seconds[s.ShortName] += s.Duration
		}
	}
	for k, v := range e.Seconds {
		e.Seconds[k] = float64(int(v*100+0.5)) / 100
	}
	return e
}

// Marshal is the file's text: one spec per line, sorted.
func (e Estimates) Marshal() []byte {
	data, _ := json.MarshalIndent(e, "", "  ") // map keys come sorted
	return append(data, '\n')
}

// Missing lists the specs of names that e holds no estimate for.
func (e Estimates) Missing(names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := e.Seconds[n]; !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// estimate is how long the spec is expected to take when no earlier run
// timed it: the kept estimate, or a guess per case.
func estimate(shortName string, cases int) time.Duration {
	if e, err := DefaultEstimates(); err == nil {
		if s, ok := e.Seconds[shortName]; ok {
			return time.Duration(s * float64(time.Second))
		}
	}
	return time.Duration(cases) * guessPerCase
}
