package coverage

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestEveryUncoveredBlockIsDecided fails when a block the last full
// coverage run left uncovered (the kept snapshot, make coverage) is neither
// covered by a spec elsewhere nor decided out of scope or unreachable.
func TestEveryUncoveredBlockIsDecided(t *testing.T) {
	snap, ds := load(t)
	_, undecided, _ := ds.Apply(snap.Blocks)
	if len(undecided) == 0 {
		return
	}
	byFunc := map[string]int{}
	for _, b := range undecided {
		byFunc[b.Package()+" "+b.Func] += b.Statements
	}
	lines := make([]string, 0, len(byFunc))
	for k, n := range byFunc {
		lines = append(lines, fmt.Sprintf("%s (%d statements)", k, n))
	}
	sort.Strings(lines)
	if len(lines) > 40 {
		lines = append(lines[:40], fmt.Sprintf("... and %d more functions", len(lines)-40))
	}
	t.Errorf("%d uncovered blocks are undecided: cover them with a spec, or decide them in decisions.yaml:\n  %s",
		len(undecided), strings.Join(lines, "\n  "))
}

// TestEveryDecisionDecidesABlock fails on a decision no uncovered block
// needs any more (a spec now covers its code, or the pin moved): a stale
// decision would hide the next uncovered block it happens to match.
func TestEveryDecisionDecidesABlock(t *testing.T) {
	snap, ds := load(t)
	_, _, used := ds.Apply(snap.Blocks)
	for i, n := range used {
		if n == 0 {
			t.Errorf("decision %d (%s %s %s: %s) matches no uncovered block: remove it", i+1,
				strings.Join(ds[i].Packages, ","), strings.Join(ds[i].Files, ","), strings.Join(ds[i].Funcs, ","), ds[i].Decision)
		}
	}
}

// TestSnapshotIsOfThePinnedModules fails after a move of the pin until
// make coverage measures the new sources.
func TestSnapshotIsOfThePinnedModules(t *testing.T) {
	snap, _ := load(t)
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]string{}
	for _, r := range mf.Require {
		pinned[r.Mod.Path] = r.Mod.Version
	}
	for _, r := range mf.Replace {
		if r.New.Version != "" {
			pinned[r.Old.Path] = r.New.Version
		}
	}
	for _, mod := range Modules {
		if snap.Modules[mod] != pinned[mod] {
			t.Errorf("uncovered.txt was measured on %s %s, go.mod pins %s: run make coverage", mod, snap.Modules[mod], pinned[mod])
		}
	}
}

func load(t *testing.T) (Snapshot, Decisions) {
	t.Helper()
	snap, err := ReadSnapshot("uncovered.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Blocks) == 0 {
		t.Fatal("uncovered.txt holds no block: run make coverage")
	}
	ds, err := LoadDecisions("decisions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return snap, ds
}

func TestDecisionMatching(t *testing.T) {
	b := Block{File: "k8s.io/apiserver/pkg/admission/plugin/webhook/mutating/dispatcher.go", Func: "mutatingDispatcher.Dispatch", StartLine: 41, EndLine: 44}
	cases := []struct {
		d    Decision
		want bool
	}{
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/..."}}, true},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"}}, true},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/plugin/webhook"}}, false},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/plugin/*/mutating"}}, true},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/..."}, Files: []string{"d*.go"}}, true},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/..."}, Files: []string{"plugin.go"}}, false},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/..."}, Funcs: []string{"mutatingDispatcher.*"}}, true},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/..."}, Funcs: []string{"Dispatch"}}, false},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"}, Files: []string{"dispatcher.go"}, Lines: []string{"1", "40-42"}}, true},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"}, Files: []string{"dispatcher.go"}, Lines: []string{"42"}}, false},
		{Decision{Packages: []string{"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"}, Files: []string{"dispatcher.go"}, Lines: []string{"38-40"}}, false},
	}
	for i, c := range cases {
		if got := c.d.Matches(b); got != c.want {
			t.Errorf("case %d: %+v matches = %v, want %v", i, c.d, got, c.want)
		}
	}
	ds := Decisions{
		{Packages: []string{"k8s.io/apiserver/pkg/admission/..."}, Funcs: []string{"x"}, Decision: Unreachable},
		{Packages: []string{"k8s.io/apiserver/pkg/admission/..."}, Decision: OutOfScope},
	}
	if i := ds.Decide(b); i != 1 {
		t.Errorf("Decide = %d, want the first decision that matches (1)", i)
	}
	tallies, undecided, used := ds.Apply([]Block{b, {File: "k8s.io/other/x.go", Statements: 2}})
	if len(undecided) != 1 || used[1] != 1 || used[0] != 0 || tallies[0].OutOfScope != 0 && tallies[0].Package != b.Package() {
		t.Errorf("Apply: tallies %+v, undecided %+v, used %v", tallies, undecided, used)
	}
}

func TestDecisionValidation(t *testing.T) {
	bad := []Decision{
		{Decision: OutOfScope, Reason: "r"},
		{Packages: []string{"p"}, Decision: OutOfScope},
		{Packages: []string{"p"}, Decision: "maybe", Reason: "r"},
		{Packages: []string{"p"}, Decision: Spec, Reason: "r"},
		{Packages: []string{"p"}, Decision: Unreachable, Specs: []string{"S"}, Reason: "r"},
		{Packages: []string{"p["}, Decision: Unreachable, Reason: "r"},
		{Packages: []string{"p"}, Decision: "gap", Reason: "no spec yet"},
		{Packages: []string{"p"}, Lines: []string{"3"}, Decision: Unreachable, Reason: "r"},
		{Packages: []string{"p/..."}, Files: []string{"a.go"}, Lines: []string{"3"}, Decision: Unreachable, Reason: "r"},
		{Packages: []string{"p"}, Files: []string{"*.go"}, Lines: []string{"3"}, Decision: Unreachable, Reason: "r"},
		{Packages: []string{"p"}, Files: []string{"a.go"}, Lines: []string{"3-2"}, Decision: Unreachable, Reason: "r"},
		{Packages: []string{"p"}, Files: []string{"a.go"}, Lines: []string{"x"}, Decision: Unreachable, Reason: "r"},
	}
	for i, d := range bad {
		if d.Validate() == nil {
			t.Errorf("case %d: %+v validated", i, d)
		}
	}
	if err := (Decision{Packages: []string{"p/..."}, Decision: Spec, Specs: []string{"S"}, Reason: "r"}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	in := Snapshot{Modules: map[string]string{"k8s.io/apiserver": "v0.37.2"}, Blocks: []Block{
		{File: "k8s.io/apiserver/pkg/admission/z.go", StartLine: 9, StartCol: 2, EndLine: 11, EndCol: 3, Statements: 2, Func: "T.M"},
		{File: "k8s.io/apiserver/pkg/admission/a.go", StartLine: 1, StartCol: 14, EndLine: 3, EndCol: 2, Statements: 1, Func: "<file scope>"},
	}}
	var buf bytes.Buffer
	if err := WriteSnapshot(&buf, in); err != nil {
		t.Fatal(err)
	}
	f := t.TempDir() + "/u.txt"
	if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := ReadSnapshot(f)
	if err != nil {
		t.Fatal(err)
	}
	if out.Modules["k8s.io/apiserver"] != "v0.37.2" || len(out.Blocks) != 2 || out.Blocks[0] != in.Blocks[1] || out.Blocks[1] != in.Blocks[0] {
		t.Errorf("round trip: got %+v from\n%s", out, buf.String())
	}
}
