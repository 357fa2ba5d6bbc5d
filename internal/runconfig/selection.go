package runconfig

import (
	"slices"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/runner"
)

// selects is the selection's test of a spec (suites, profiles, label
// filters, --rerun-failed). Focus and skip only narrow a selection, so they
// are left out. ok is false when the label filter does not parse (Validate
// rejects it first): then the selection counts as including everything.
func (o *Config) selects() (selects func(spec.Spec) bool, ok bool) {
	matches := func([]string) bool { return true }
	if filter := runner.AndFilters(o.LabelFilter, o.RerunFilter); filter != "" {
		parsed, err := types.ParseLabelFilter(filter)
		if err != nil {
			return nil, false
		}
		matches = parsed
	}
	return func(s spec.Spec) bool {
		return (len(o.Suites) == 0 || slices.Contains(o.Suites, s.Suite)) &&
			(len(o.Profiles) == 0 || slices.Contains(o.Profiles, string(s.Profile))) && matches(s.Labels())
	}, true
}

// mayRun reports whether the selection can include a spec that want
// accepts.
func (o *Config) mayRun(want func(spec.Spec) bool) bool {
	selects, ok := o.selects()
	if !ok {
		return true
	}
	return slices.ContainsFunc(spec.All(), func(s spec.Spec) bool { return want(s) && selects(s) })
}

// SelectedSpecs counts the specs the selection can include; focus and skip
// may only narrow it.
func (o *Config) SelectedSpecs() int {
	selects, ok := o.selects()
	if !ok {
		return len(spec.All())
	}
	n := 0
	for _, s := range spec.All() {
		if selects(s) {
			n++
		}
	}
	return n
}

// MaySelect returns the specs the selection can include (focus and skip
// may only narrow it): what the rights a run asks for are derived from.
func (o *Config) MaySelect() []spec.Spec {
	selects, ok := o.selects()
	if !ok {
		return spec.All()
	}
	var out []spec.Spec
	for _, s := range spec.All() {
		if selects(s) {
			out = append(out, s)
		}
	}
	return out
}
