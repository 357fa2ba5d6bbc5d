package report

import (
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// A flaky case fails its profile, and a report that says otherwise does
// not validate.
func TestFlakyCaseFailsItsProfile(t *testing.T) {
	pass := results.Spec{Suite: "ordering", ShortName: "A", Name: "A case", Profile: "core", State: results.Passed}
	fail := pass
	fail.State, fail.Message = results.Failed, "boom"
	flaky := results.Aggregate([]results.Spec{pass, fail})
	p := buildProfile(spec.Core, []results.Spec{pass, flaky}, nil)
	if p.Result != Failure || p.Statistics.Flaky != 1 || p.Statistics.Passed != 1 || len(p.Flaky) != 1 || p.Flaky[0].PassRate == nil {
		t.Fatalf("profile %+v", p)
	}
	if err := p.validate(); err != nil {
		t.Fatal(err)
	}
	p.Result = Success
	if err := p.validate(); err == nil || !strings.Contains(err.Error(), "1 flaky but the result is success") {
		t.Errorf("a flaky profile written success: %v", err)
	}
}
