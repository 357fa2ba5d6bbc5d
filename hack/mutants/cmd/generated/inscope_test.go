package main

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/hack/mutants/generate"
)

// TestInScopeLeavesOutPluginsTheReleaseTableDoesNotCertify: sites in a
// plugin the release table decides out of scope are left out and counted;
// sites of in-scope plugins and of packages that register none stay.
func TestInScopeLeavesOutPluginsTheReleaseTableDoesNotCertify(t *testing.T) {
	files := map[string]generate.Source{
		"runtimeclass/admission.go":  {Plugin: "RuntimeClass"},
		"limitranger/admission.go":   {Plugin: "LimitRanger"},
		"webhook/generic/webhook.go": {},
	}
	sites := []generate.Site{
		{File: "runtimeclass/admission.go", Line: 1},
		{File: "runtimeclass/admission.go", Line: 2},
		{File: "limitranger/admission.go", Line: 3},
		{File: "webhook/generic/webhook.go", Line: 4},
	}
	kept, left := inScope(sites, files)
	if len(kept) != 2 || kept[0].Line != 3 || kept[1].Line != 4 {
		t.Errorf("kept %+v, want the LimitRanger and the webhook site", kept)
	}
	if len(left) != 1 || left["RuntimeClass"] != 2 {
		t.Errorf("left out %v, want RuntimeClass: 2", left)
	}
}
