package runconfig

import (
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/report"
)

// ImplementationOrNil validates what the user stated; nothing stated is
// fine (a CI run certifies nothing) and yields nil.
func ImplementationOrNil(impl report.Implementation) (*report.Implementation, error) {
	if impl.IsZero() {
		return nil, nil
	}
	if err := impl.Validate(); err != nil {
		return nil, exitcode.Usagef("%v (flags --implementation-*, or implementation: in the options file)", err)
	}
	return &impl, nil
}
