package runconfig

import (
	"runtime"
	"slices"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/runner"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

// WorkersRule says how DefaultWorkers picks. Specs mostly wait (for
// timeouts, propagation, kubelets), so more workers than CPUs pay off.
const WorkersRule = "4 per CPU, at least 4, at most 8"

// DefaultWorkers is how many specs run at once unless --parallel says.
func DefaultWorkers() int { return min(8, max(4, 4*runtime.NumCPU())) }

// Workers is how many specs run at once.
func (o *Config) Workers() int {
	if o.Parallel > 0 {
		return o.Parallel
	}
	return DefaultWorkers()
}

func (o *Config) validateParallel() error {
	if o.Parallel < 0 {
		return exitcode.Usagef("--parallel must be 0 (chosen for this machine) or more, got %d", o.Parallel)
	}
	return nil
}

// SelectedSpecs counts the specs the selection (suites, profiles, label
// filters, --rerun-failed) can include; focus and skip may only narrow it.
// A label filter that does not parse counts as including everything, as in
// mayRun.
func (o *Config) SelectedSpecs() int {
	matches := func([]string) bool { return true }
	if filter := runner.AndFilters(o.LabelFilter, o.RerunFilter); filter != "" {
		parsed, err := types.ParseLabelFilter(filter)
		if err != nil {
			return len(spec.All())
		}
		matches = parsed
	}
	n := 0
	for _, s := range spec.All() {
		if (len(o.Suites) > 0 && !slices.Contains(o.Suites, s.Suite)) ||
			(len(o.Profiles) > 0 && !slices.Contains(o.Profiles, string(s.Profile))) || !matches(s.Labels()) {
			continue
		}
		n++
	}
	return n
}
