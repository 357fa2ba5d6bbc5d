package results

// CodeCoverage is the statement coverage of the pinned admission code by
// one run of a binary built with coverage (make coverage, hack/coverage):
// per package and in all, and the modules measured.
type CodeCoverage struct {
	// Modules maps each measured module to its version.
	Modules map[string]string `json:"modules"`
	// Packages are sorted by import path.
	Packages []PackageCoverage `json:"packages"`
	Total    PackageCoverage   `json:"total"`
	// Uncovered counts the uncovered statements by how they are decided
	// (out-of-scope, unreachable, spec, undecided).
	Uncovered map[string]int `json:"uncovered,omitempty"`
}

// PackageCoverage is the statement coverage of one package.
type PackageCoverage struct {
	Package    string `json:"package"`
	Statements int    `json:"statements"`
	Covered    int    `json:"covered"`
}

// Percent is the share of statements covered, 0-100.
func (p PackageCoverage) Percent() float64 {
	if p.Statements == 0 {
		return 0
	}
	return 100 * float64(p.Covered) / float64(p.Statements)
}
