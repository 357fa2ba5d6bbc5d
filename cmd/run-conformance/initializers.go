package main

import (
	"slices"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// validateReferenceInitializers checks the hidden
// --reference-initializers-fault flag.
func (o *runOptions) validateReferenceInitializers() error {
	if err := harness.CheckInitializersFault(o.initializersFault); err != nil {
		return usageError("--reference-initializers-fault: %v", err)
	}
	return nil
}

// referenceInitializers says whether the run installs the reference
// initializers: when asked to (the default) and the selection can include a
// spec that needs them. The harness installs them only where the cluster can
// call this host (HostWebhooksReachable).
func (o *runOptions) referenceInitializers() harness.ReferenceInitializers {
	install := o.ReferenceInitializers && o.mayRun(func(s spec.Spec) bool {
		return slices.Contains(s.Features, features.ReferenceInitializers)
	})
	return harness.ReferenceInitializers{Install: install, Fault: o.initializersFault}
}
