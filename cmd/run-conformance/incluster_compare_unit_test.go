package main

import (
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// TestCompareInClusterWithLocal: the kind test's comparison accepts only a
// not-supported case whose spec needs a feature the cluster run lacks.
func TestCompareInClusterWithLocal(t *testing.T) {
	spec := func(name string, state results.State, feats ...string) results.Spec {
		return results.Spec{Suite: "s", ShortName: name, Name: "case", State: state, Features: feats}
	}
	local := results.Results{Features: results.Features{Declared: []string{"ReferenceInitializers", "NodeAdmission"}},
		Specs: []results.Spec{spec("A", results.Passed), spec("Init", results.Passed, "ReferenceInitializers"),
			spec("Node", results.Passed, "NodeAdmission"), spec("Gone", results.Passed)}}
	inCluster := results.Results{Features: results.Features{Claimed: []string{"NodeAdmission"}},
		Specs: []results.Spec{spec("A", results.Passed), spec("Init", results.NotSupported, "ReferenceInitializers"),
			spec("Node", results.NotSupported, "NodeAdmission"), spec("Extra", results.Passed)}}
	same, diff := compareInClusterWithLocal(local, inCluster)
	if same != 1 {
		t.Errorf("same %d, want 1", same)
	}
	want := []string{"s/Extra: case: passed in the cluster, absent in the local run",
		"s/Gone: case: passed in the local run, absent in the cluster",
		"s/Node: case: passed in the local run, not-supported in the cluster ()"}
	if strings.Join(diff, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(diff, "\n"), strings.Join(want, "\n"))
	}
}
