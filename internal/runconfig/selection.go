package runconfig

import (
	"slices"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/runner"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// MayRun reports whether the selection (suites, profiles, label filters,
// --rerun-failed) can include a spec that want accepts. Focus and skip only
// narrow a selection, so they are left out. A label filter that does not
// parse (validate rejects it first) counts as including everything.
func (o *Config) MayRun(want func(spec.Spec) bool) bool {
	filter := runner.AndFilters(o.LabelFilter, o.RerunFilter)
	matches := func([]string) bool { return true }
	if filter != "" {
		parsed, err := types.ParseLabelFilter(filter)
		if err != nil {
			return true
		}
		matches = parsed
	}
	for _, s := range spec.All() {
		if !want(s) ||
			(len(o.Suites) > 0 && !slices.Contains(o.Suites, s.Suite)) ||
			(len(o.Profiles) > 0 && !slices.Contains(o.Profiles, string(s.Profile))) {
			continue
		}
		if matches(s.Labels()) {
			return true
		}
	}
	return false
}
