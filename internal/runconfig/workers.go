package runconfig

import (
	"runtime"

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
