package engine

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// TestDuplicateCaseIsFound: a spec with two cases of one name (a table row
// written twice) is caught before a run, since results key on the name.
func TestDuplicateCaseIsFound(t *testing.T) {
	// Name is Ginkgo's full text: the spec's short name, then the case's.
	c := func(short, name string) results.Spec {
		return results.Spec{Suite: "webhooks", ShortName: short, Name: short + " " + name}
	}
	if got := duplicateCase([]results.Spec{c("A", "x"), c("B", "x"), c("A", "y")}); got != "" {
		t.Errorf("distinct cases: %q", got)
	}
	if got := duplicateCase([]results.Spec{c("A", "x"), c("A", "y"), c("A", "x")}); got != "webhooks/A x" {
		t.Errorf("a repeated case: %q, want webhooks/A x", got)
	}
}
