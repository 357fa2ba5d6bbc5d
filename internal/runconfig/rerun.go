package runconfig

import (
	"sort"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
)

// rerunFilter reads an earlier run and returns the Ginkgo label filter that
// selects the specs that failed (or were flaky: never a pass) in it
// ("spec:A || spec:B"), or "" if none did.
func FailedFilter(path string) (string, error) {
	res, file, err := history.Resolve(path)
	if err != nil {
		return "", exitcode.Usagef("--rerun-failed: %v", err)
	}
	failed := map[string]bool{}
	outsideSpecs := false
	for _, s := range res.Specs {
		if s.State != results.Failed && s.State != results.Flaky {
			continue
		}
		if s.Profile == "" {
			outsideSpecs = true // BeforeSuite and the like: no spec to name
			continue
		}
		if _, ok := spec.Lookup(s.ShortName); !ok {
			return "", exitcode.Usagef("--rerun-failed: spec %s failed in %s but this run-conformance does not have it", s.ShortName, file)
		}
		failed[s.ShortName] = true
	}
	if len(failed) == 0 && outsideSpecs {
		return "", exitcode.Usagef("--rerun-failed: %s failed outside any spec (suite set-up): run everything again instead", file)
	}
	names := make([]string, 0, len(failed))
	for n := range failed {
		names = append(names, "spec:"+n)
	}
	sort.Strings(names)
	return strings.Join(names, " || "), nil
}
