package fakewebhook

import (
	"slices"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// TestFieldPathsNameWhatACallCarried: with WithFieldPaths, a call records
// the paths its request and its answer set, as the function names them;
// without it, none.
func TestFieldPathsNameWhatACallCarried(t *testing.T) {
	t.Parallel()
	named := func(root string, doc []byte) ([]results.FieldPath, error) {
		return []results.FieldPath{results.FieldPath(root + ".seen")}, nil
	}
	for _, tc := range []struct {
		name          string
		opts          []Option
		request, resp []results.FieldPath
	}{
		{"with", []Option{WithFieldPaths(named)}, []results.FieldPath{"AdmissionRequest.seen"}, []results.FieldPath{"AdmissionResponse.seen"}},
		{"without", nil, nil, nil},
	} {
		h := newHarness(t, tc.opts...)
		h.register("/allow", Validating, Behaviour{Action: Allow})
		uid := typesUID("fields-" + tc.name)
		if _, err := h.post(h.client, "/allow", reviewBody(t, reviewV1, uid)); err != nil {
			t.Fatal(err)
		}
		c := h.callFor(uid)
		if !slices.Equal(c.RequestFields, tc.request) || !slices.Equal(c.AnswerFields, tc.resp) {
			t.Errorf("%s: request fields %v, answer fields %v; want %v, %v", tc.name, c.RequestFields, c.AnswerFields, tc.request, tc.resp)
		}
	}
}
