package mutants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryMutantFitsThePinnedSource loads hack/mutants/*.yaml and applies
// each mutant to the pinned module's pristine file, so a version bump that
// moves the code fails here, not hours into `make mutation`.
func TestEveryMutantFitsThePinnedSource(t *testing.T) {
	all, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("../..")
	dirs := map[string]string{}
	for _, mod := range Modules {
		dir, _, err := moduleDir(repo, mod)
		if err != nil {
			t.Fatal(err)
		}
		dirs[mod] = dir
	}
	for _, m := range all {
		src, err := os.ReadFile(filepath.Join(dirs[m.Module], m.File))
		if err != nil {
			t.Errorf("mutant %s: %v", m.Name, err)
			continue
		}
		if _, err := m.Apply(src); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%d mutants fit the pinned source", len(all))
}

func TestApplyNeedsExactlyOneOccurrence(t *testing.T) {
	m := Mutant{Name: "x", Find: "a", Replace: "b", And: []Edit{{Find: "c", Replace: "d"}}}
	got, err := m.Apply([]byte("a c"))
	if err != nil || string(got) != "b d" {
		t.Fatalf("Apply = %q, %v; want \"b d\"", got, err)
	}
	for _, src := range []string{"c", "a a c", "a c c"} {
		if _, err := m.Apply([]byte(src)); err == nil {
			t.Errorf("Apply(%q) must fail: each find must occur exactly once", src)
		}
	}
}

func TestValidateRefusesIncompleteMutants(t *testing.T) {
	ok := Mutant{Name: "a-b", Clause: "x.y", Breaks: "z", Module: "k8s.io/apiserver", File: "f.go", Find: "a", Replace: "b", Specs: []string{"S"}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Mutant){
		"bad name":       func(m *Mutant) { m.Name = "A B" },
		"unknown module": func(m *Mutant) { m.Module = "k8s.io/client-go" },
		"escaping file":  func(m *Mutant) { m.File = "../x.go" },
		"no-op":          func(m *Mutant) { m.Replace = m.Find },
		"no specs":       func(m *Mutant) { m.Specs = nil },
		"no clause":      func(m *Mutant) { m.Clause = "" },
	} {
		m := ok
		mutate(&m)
		if err := m.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, m)
		}
	}
	eq := ok
	eq.Specs, eq.Equivalent = nil, "not observable"
	if err := eq.Validate(); err != nil {
		t.Errorf("an equivalent mutant needs no specs: %v", err)
	}
	if !strings.Contains(ok.LabelFilter(), "spec:S") {
		t.Errorf("LabelFilter = %q", ok.LabelFilter())
	}
}

func TestFailedSpecAndInterrupted(t *testing.T) {
	if got := failedSpec("[257/476] FAILED        webhooks/PolicyFirstFailureDecides: Unauthorized, then x (0.5s, 1m3s elapsed)"); got != "PolicyFirstFailureDecides" {
		t.Errorf("failedSpec = %q", got)
	}
	if !Interrupted("no result from the worker process that ran webhooks/PolicyParams: open x: no such file or directory (exit: signal: interrupt); last output: (none)") ||
		!Interrupted("Interrupted by User") || Interrupted("expected 403, got 500") {
		t.Error("Interrupted misjudges a message")
	}
}
