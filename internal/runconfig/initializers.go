package runconfig

import (
	"slices"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
)

// validateReferenceInitializers checks the hidden
// --reference-initializers-fault flag.
func (o *Config) validateReferenceInitializers() error {
	if err := harness.CheckInitializersFault(o.InitializersFault); err != nil {
		return exitcode.Usagef("--reference-initializers-fault: %v", err)
	}
	return nil
}

// referenceInitializers says whether the run installs the reference
// initializers: when asked to (the default) and the selection can include a
// spec that needs them. The harness installs them only where the cluster can
// call this host (HostWebhooksReachable).
func (o *Config) Initializers() harness.ReferenceInitializers {
	install := o.ReferenceInitializers && o.mayRun(func(s spec.Spec) bool {
		return slices.Contains(s.Features, features.ReferenceInitializers)
	})
	return harness.ReferenceInitializers{Install: install, Fault: o.InitializersFault}
}
