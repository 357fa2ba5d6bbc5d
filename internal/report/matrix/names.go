package matrix

import (
	"fmt"
	"path/filepath"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// ResultsInput is a run read back from its results.json (compare --matrix,
// hack/versions): its column is named by RunName, its exit code is the one
// its results imply, its duration their own span.
func ResultsInput(source string, res results.Results) Input {
	in := Input{Source: source, Results: &res, ExitCode: ExitPassed}
	if res.Summary.Failed > 0 {
		in.ExitCode = ExitFailed
	}
	if !res.FinishedAt.IsZero() && res.FinishedAt.After(res.StartedAt) {
		in.Duration = res.FinishedAt.Sub(res.StartedAt)
	}
	return in
}

// RunName names a run's column by the Kubernetes version its results.json
// records, or else by the folder holding it.
func RunName(res results.Results, source string) string {
	if v := res.Cluster.KubernetesVersion; v != "" {
		return v
	}
	if filepath.Base(source) == results.FileName {
		source = filepath.Dir(source)
	}
	if name := filepath.Base(source); name != "." && name != string(filepath.Separator) {
		return name
	}
	return source
}

// uniqueNames returns the inputs' column names: a given name, else
// RunName; names that repeat get the run's folder appended, then a number.
func uniqueNames(inputs []Input) []string {
	names := make([]string, len(inputs))
	count := map[string]int{}
	for i, in := range inputs {
		names[i] = in.Name
		if names[i] == "" && in.Results != nil {
			names[i] = RunName(*in.Results, in.Source)
		}
		count[names[i]]++
	}
	seen := map[string]bool{}
	for i, in := range inputs {
		if count[names[i]] > 1 {
			if dir := RunName(results.Results{}, in.Source); dir != "" && dir != names[i] {
				names[i] += " (" + dir + ")"
			}
		}
		base := names[i]
		for n := 2; seen[names[i]]; n++ {
			names[i] = fmt.Sprintf("%s #%d", base, n)
		}
		seen[names[i]] = true
	}
	return names
}
