package parallel

import (
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Merge makes the run's cases from the plan and what the workers reported:
// every planned case in plan order, a selected one with the outcome of the
// worker that ran it (matched by name), and missing(c) for a selected case
// no worker reported (its worker failed, or never started). Cases the
// selection left out stay as planned. Outcomes of suite-level nodes
// (suite "harness", a worker's BeforeSuite or AfterSuite failing) follow at
// the end.
func Merge(plan []results.Spec, selected func(results.Spec) bool, outcomes []results.Spec, missing func(results.Spec) results.Spec) []results.Spec {
	byName := map[string][]results.Spec{}
	var harness []results.Spec
	for _, o := range outcomes {
		if o.Message == results.NotSelected {
			continue // a worker lists every case; it ran only its own
		}
		if o.Suite == "harness" && o.Profile == "" {
			harness = append(harness, o)
			continue
		}
		byName[o.Name] = append(byName[o.Name], o)
	}
	out := make([]results.Spec, 0, len(plan)+len(harness))
	for _, c := range plan {
		if !selected(c) {
			out = append(out, c)
			continue
		}
		if got := byName[c.Name]; len(got) > 0 {
			out = append(out, got[0])
			byName[c.Name] = got[1:]
			continue
		}
		out = append(out, missing(c))
	}
	return append(out, harness...)
}

// Outcomes are the cases a worker's results.json says it ran.
func Outcomes(r results.Results) []results.Spec {
	var out []results.Spec
	for _, s := range r.Specs {
		if s.Message != results.NotSelected {
			out = append(out, s)
		}
	}
	return out
}
