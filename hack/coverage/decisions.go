package coverage

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// Kind is how an uncovered block is decided.
type Kind string

// The kinds. A block a spec covers is not in the uncovered list at all; a
// block that stays uncovered is one of these.
const (
	// OutOfScope: the code is not part of the admission contract the suites
	// certify (a plugin not enabled, a legacy configuration version, a
	// helper for other callers), so no spec should reach it.
	OutOfScope Kind = "out-of-scope"
	// Unreachable: the contract includes it, but a run cannot reach it on
	// the clusters the harness builds (an internal error path, another OS,
	// a fault of the apiserver's own storage), so no spec can.
	Unreachable Kind = "unreachable"
	// Spec: specs that reach it exist, but not on the embedded cluster the
	// coverage run uses (kind-only specs, say); Specs names them.
	Spec Kind = "spec"
)

// Decision decides every uncovered block it matches.
type Decision struct {
	// Packages are import paths or path.Match patterns; "P/..." matches P
	// and every package under it.
	Packages []string `json:"packages"`
	// Files are path.Match patterns of the file's base name (any if empty).
	Files []string `json:"files,omitempty"`
	// Funcs are path.Match patterns of the function name, "Type.Method" or
	// "Func" (any if empty).
	Funcs []string `json:"funcs,omitempty"`
	// Lines are line ranges of the pinned source, "231-234" or "306": a
	// block matches when it starts inside one. They decide single blocks
	// inside a function a spec covers otherwise (an internal error path in
	// a function whose other branches a request reaches); they go with one
	// file name and no pattern, since line numbers hold for one file.
	Lines []string `json:"lines,omitempty"`
	// Decision is the kind.
	Decision Kind `json:"decision"`
	// Specs are the specs that cover the blocks elsewhere (Kind Spec).
	Specs []string `json:"specs,omitempty"`
	// Reason says why, in one or two sentences a reviewer can check.
	Reason string `json:"reason"`
}

// Matches reports whether the decision covers b.
func (d Decision) Matches(b Block) bool {
	return anyMatch(d.Packages, b.Package(), true) &&
		(len(d.Files) == 0 || anyMatch(d.Files, path.Base(b.File), false)) &&
		(len(d.Funcs) == 0 || anyMatch(d.Funcs, b.Func, false)) &&
		(len(d.Lines) == 0 || inLines(d.Lines, b.StartLine))
}

// inLines reports whether line lies in one of the ranges (validated).
func inLines(ranges []string, line int) bool {
	for _, r := range ranges {
		from, to, _ := lineRange(r)
		if line >= from && line <= to {
			return true
		}
	}
	return false
}

// lineRange parses "231-234" or "306".
func lineRange(r string) (from, to int, err error) {
	a, b, isRange := strings.Cut(r, "-")
	if from, err = strconv.Atoi(a); err != nil {
		return 0, 0, fmt.Errorf("line range %q: want N or N-M", r)
	}
	to = from
	if isRange {
		if to, err = strconv.Atoi(b); err != nil {
			return 0, 0, fmt.Errorf("line range %q: want N or N-M", r)
		}
	}
	if from < 1 || to < from {
		return 0, 0, fmt.Errorf("line range %q: want 1 <= N <= M", r)
	}
	return from, to, nil
}

func anyMatch(patterns []string, s string, tree bool) bool {
	for _, p := range patterns {
		if tree {
			if root, ok := strings.CutSuffix(p, "/..."); ok && (s == root || strings.HasPrefix(s, root+"/")) {
				return true
			}
		}
		if ok, _ := path.Match(p, s); ok {
			return true
		}
	}
	return false
}

// Validate checks one decision's own fields.
func (d Decision) Validate() error {
	switch {
	case len(d.Packages) == 0:
		return errors.New("packages is empty")
	case strings.TrimSpace(d.Reason) == "":
		return errors.New("reason is empty")
	}
	switch d.Decision {
	case OutOfScope, Unreachable:
		if len(d.Specs) > 0 {
			return fmt.Errorf("specs go with decision %s only", Spec)
		}
	case Spec:
		if len(d.Specs) == 0 {
			return fmt.Errorf("decision %s names no specs", Spec)
		}
	default:
		// There is no "open" kind: a block a request reaches and the
		// contract promises gets a spec, not a decision.
		return fmt.Errorf("decision must be %s, %s or %s, got %q", OutOfScope, Unreachable, Spec, d.Decision)
	}
	if len(d.Lines) > 0 {
		if len(d.Packages) != 1 || len(d.Files) != 1 || strings.ContainsAny(d.Packages[0]+d.Files[0], "*?[") || strings.HasSuffix(d.Packages[0], "/...") {
			return errors.New("lines go with exactly one package and one file name, no patterns")
		}
		for _, r := range d.Lines {
			if _, _, err := lineRange(r); err != nil {
				return err
			}
		}
	}
	for _, ps := range [][]string{d.Packages, d.Files, d.Funcs} {
		for _, p := range ps {
			if _, err := path.Match(strings.TrimSuffix(p, "/..."), ""); err != nil {
				return fmt.Errorf("pattern %q: %w", p, err)
			}
		}
	}
	return nil
}

// Decisions is the table, first match wins.
type Decisions []Decision

// LoadDecisions reads and validates the table.
func LoadDecisions(file string) (Decisions, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var ds Decisions
	if err := yaml.UnmarshalStrict(raw, &ds); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var errs []error
	for i, d := range ds {
		if err := d.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: decision %d (%s): %w", file, i+1, strings.Join(d.Packages, ","), err))
		}
	}
	return ds, errors.Join(errs...)
}

// Decide returns the index of the first decision matching b, or -1.
func (ds Decisions) Decide(b Block) int {
	for i, d := range ds {
		if d.Matches(b) {
			return i
		}
	}
	return -1
}

// Tally is how the uncovered statements of one package are decided.
type Tally struct {
	Package                                  string
	Blocks, Statements                       int
	OutOfScope, Unreachable, Spec, Undecided int
}

// Apply decides every block: the tallies per package (statements) and the
// blocks no decision matches, and how many blocks each decision matched.
func (ds Decisions) Apply(blocks []Block) (tallies []Tally, undecided []Block, used []int) {
	used = make([]int, len(ds))
	by := map[string]*Tally{}
	var order []string
	for _, b := range blocks {
		t := by[b.Package()]
		if t == nil {
			t = &Tally{Package: b.Package()}
			by[b.Package()] = t
			order = append(order, b.Package())
		}
		t.Blocks++
		t.Statements += b.Statements
		i := ds.Decide(b)
		if i < 0 {
			t.Undecided += b.Statements
			undecided = append(undecided, b)
			continue
		}
		used[i]++
		switch ds[i].Decision {
		case OutOfScope:
			t.OutOfScope += b.Statements
		case Unreachable:
			t.Unreachable += b.Statements
		case Spec:
			t.Spec += b.Statements
		}
	}
	for _, p := range order {
		tallies = append(tallies, *by[p])
	}
	return tallies, undecided, used
}
