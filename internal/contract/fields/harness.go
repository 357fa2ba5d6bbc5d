package fields

import "github.com/admission-conformance/admission-conformance/framework/harness"

// Harness is the field recording the engine hands every environment it
// boots or attaches (harness.Engine.Fields): the
// public harness may not import this package, whose inventory depends on
// the pinned Kubernetes.
func Harness() harness.Fields {
	return harness.Fields{NewRecorder: func() harness.FieldRecorder { return NewRecorder() }, Paths: Paths}
}
