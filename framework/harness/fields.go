package harness

import (
	"net/http"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Fields is how the harness records what each case does with the
// admission API's fields (results.FieldUse). The inventory of those fields
// depends on the pinned Kubernetes and is the engine's
// (internal/contract/fields), which hands it in through Engine.Fields (Config and
// AttachConfig embed Engine), since harness imports nothing internal.
type Fields struct {
	// NewRecorder returns an empty recorder for one case.
	NewRecorder func() FieldRecorder
	// Paths names the fields of what the fake webhooks receive and answer
	// (fakewebhook.WithFieldPaths).
	Paths fakewebhook.FieldPaths
}

// FieldRecorder collects one case's use of the fields; it is safe for
// concurrent use.
type FieldRecorder interface {
	// Wrap records the admission configuration objects written through rt.
	Wrap(rt http.RoundTripper) http.RoundTripper
	// Received records the paths of an AdmissionRequest a webhook received.
	Received(paths []results.FieldPath)
	// Answered records the paths of an AdmissionResponse a webhook
	// answered.
	Answered(paths []results.FieldPath)
	// Use returns what was recorded so far.
	Use() results.FieldUse
}

func (f Fields) complete() bool { return f.NewRecorder != nil && f.Paths != nil }
