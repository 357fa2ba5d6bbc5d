package compare

import (
	"fmt"
	"io"
	"sort"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// CoverageChange is the statement coverage of one package of the
// implementation's admission code in two runs that measured it (make
// coverage). A drop is shown, not counted as a regression: coverage moves
// with the selection and with timing (retries, fail-open paths).
type CoverageChange struct {
	Package string `json:"package"`
	// Old and New are covered/statements; absent when the run did not
	// measure the package.
	Old *results.PackageCoverage `json:"old,omitempty"`
	New *results.PackageCoverage `json:"new,omitempty"`
}

// compareCodeCoverage lists every package whose covered statements differ,
// and the total, when both runs measured code coverage.
func compareCodeCoverage(old, cur *results.CodeCoverage) []CoverageChange {
	if old == nil || cur == nil {
		return nil
	}
	by := map[string]*CoverageChange{}
	for _, p := range old.Packages {
		p := p
		by[p.Package] = &CoverageChange{Package: p.Package, Old: &p}
	}
	for _, p := range cur.Packages {
		p := p
		if c, ok := by[p.Package]; ok {
			c.New = &p
		} else {
			by[p.Package] = &CoverageChange{Package: p.Package, New: &p}
		}
	}
	var out []CoverageChange
	for _, c := range by {
		if c.Old == nil || c.New == nil || *c.Old != *c.New {
			out = append(out, *c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package < out[j].Package })
	if old.Total != cur.Total {
		ot, nt := old.Total, cur.Total
		out = append(out, CoverageChange{Package: "all", Old: &ot, New: &nt})
	}
	return out
}

func (d Diff) writeCodeCoverage(w io.Writer) {
	if d.CodeCoverage == nil {
		return
	}
	fmt.Fprintln(w, "code coverage of the admission code (packages whose covered statements changed):")
	if len(d.CodeCoverage) == 0 {
		fmt.Fprintln(w, "  none")
	}
	show := func(p *results.PackageCoverage) string {
		if p == nil {
			return "absent"
		}
		return fmt.Sprintf("%d/%d (%.1f%%)", p.Covered, p.Statements, p.Percent())
	}
	for _, c := range d.CodeCoverage {
		fmt.Fprintf(w, "  %s: %s -> %s\n", c.Package, show(c.Old), show(c.New))
	}
}
