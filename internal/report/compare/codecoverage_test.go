package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

func TestCodeCoverageChangesAreShownNotRegressions(t *testing.T) {
	old := results.Results{CodeCoverage: &results.CodeCoverage{
		Packages: []results.PackageCoverage{{Package: "a", Statements: 10, Covered: 5}, {Package: "b", Statements: 4, Covered: 4}, {Package: "gone", Statements: 1}},
		Total:    results.PackageCoverage{Package: "all", Statements: 15, Covered: 9},
	}}
	cur := results.Results{CodeCoverage: &results.CodeCoverage{
		Packages: []results.PackageCoverage{{Package: "a", Statements: 10, Covered: 7}, {Package: "b", Statements: 4, Covered: 4}},
		Total:    results.PackageCoverage{Package: "all", Statements: 14, Covered: 11},
	}}
	d := Compare(old, cur, DefaultThresholds())
	var got []string
	for _, c := range d.CodeCoverage {
		got = append(got, c.Package)
	}
	if strings.Join(got, ",") != "a,gone,all" {
		t.Errorf("changed packages = %v, want a, gone, all (b did not change)", got)
	}
	if d.Regressions() != 0 {
		t.Errorf("coverage changes counted as %d regressions", d.Regressions())
	}
	var buf bytes.Buffer
	d.WriteText(&buf)
	for _, want := range []string{"  a: 5/10 (50.0%) -> 7/10 (70.0%)", "  gone: 0/1 (0.0%) -> absent", "  all: 9/15 (60.0%) -> 11/14 (78.6%)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
	if d := Compare(results.Results{}, cur, DefaultThresholds()); d.CodeCoverage != nil {
		t.Errorf("a run without coverage compared as %v", d.CodeCoverage)
	}
}
