// Command busy-runs prints one line about a run for hack/busy-runs.sh: its
// cases passed and failed, the harness's worst wake-up lateness (the
// harnessDelayMs of its cases) and each failed case, marked when the
// harness said it was starved during it.
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: busy-runs RESULTS.json")
		os.Exit(2)
	}
	res, err := results.Read(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(summary(res))
}

func summary(res results.Results) string {
	var delays []float64
	var failed []string
	for _, s := range res.Specs {
		if s.HarnessDelayMs != nil {
			delays = append(delays, *s.HarnessDelayMs)
		}
		if s.State != results.Failed {
			continue
		}
		why := "not starved"
		if strings.Contains(s.Message, results.StarvedPrefix) {
			why = "starved"
		}
		first, _, _ := strings.Cut(s.Message, "\n")
		failed = append(failed, fmt.Sprintf("%s (%s; %s): %s", s.ShortName, s.Name, why, first))
	}
	line := fmt.Sprintf("%d passed, %d failed", res.Summary.Passed, res.Summary.Failed)
	if len(delays) > 0 {
		slices.Sort(delays)
		line += fmt.Sprintf("; harness wake-ups late by up to %.0fms (median case %.0fms)", delays[len(delays)-1], delays[len(delays)/2])
	}
	for _, f := range failed {
		line += "\n    " + f
	}
	return line
}
