// Package engineparts builds the internal parts the run hands every
// environment it boots or attaches (harness.Engine): one place, so the
// engine, its parallel workers and the suites' go test runs get the same.
package engineparts

import (
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/absence"
	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// Run is the run's parts: vain waits kept in memory (a parallel worker
// replaces them with the run's shared register), the rights checks, the
// pinned Kubernetes' field inventory and the harness's test hooks.
func Run() harness.Engine {
	return harness.Engine{Absences: absence.Local(), Rights: access.Rights{}, Fields: fields.Harness(), Hooks: testhook.Harness()}
}
