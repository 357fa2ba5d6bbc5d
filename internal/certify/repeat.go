package certify

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// checkRepetitions re-derives every repeated case's state from its
// repetitions (run --repeat), so that a flaky case written as passed, with
// the verdict and every report rewritten to match, is caught; and checks
// that every case the run repeated lists its repetitions, so that
// dropping them cannot hide one. It names the first case that disagrees,
// or returns "".
func checkRepetitions(res results.Results) string {
	if res.Repeat == nil {
		for _, s := range res.Specs {
			if len(s.Repetitions) > 0 || s.State == results.Flaky {
				return fmt.Sprintf("case %s/%s lists repetitions (or is flaky) but the run records no --repeat", s.Suite, s.Name)
			}
		}
		return ""
	}
	if res.Repeat.Count < 2 {
		return fmt.Sprintf("the run records --repeat %d, which repeats nothing", res.Repeat.Count)
	}
	if res.APIVersion != results.APIVersionRepeated {
		return fmt.Sprintf("the run records --repeat but the file is %s, not %s", res.APIVersion, results.APIVersionRepeated)
	}
	for _, s := range res.Specs {
		if problem := s.CheckRepetitions(); problem != "" {
			return fmt.Sprintf("case %s/%s %s", s.Suite, s.Name, problem)
		}
		ran := s.State == results.Passed || s.State == results.Failed || s.State == results.Flaky
		if !ran || s.Suite == "harness" {
			continue
		}
		measured := len(s.Measurements) > 0
		if len(s.Repetitions) == 0 && (!res.Repeat.OnlyMeasured || measured) {
			return fmt.Sprintf("case %s/%s ran but lists none of the %d repetitions the run records: its repetitions were removed", s.Suite, s.Name, res.Repeat.Count)
		}
		if len(s.Repetitions) > 0 && len(s.Repetitions) != res.Repeat.Count {
			return fmt.Sprintf("case %s/%s lists %d repetitions, not the %d the run records", s.Suite, s.Name, len(s.Repetitions), res.Repeat.Count)
		}
	}
	return ""
}
