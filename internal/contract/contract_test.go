package contract

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var sample = []Clause{
	{ID: "order.first", Area: Ordering, Promise: "Mutators run first.", Source: "seed 000", Specs: []string{"A", "B"}},
	{ID: "order.second", Area: Ordering, Promise: "A '*/*' rule | matches <everything>.", Source: "seed 002 Rule_x",
		Optional: "SomeFeature"},
	{ID: "node.third", Area: NodeAdmission, Promise: "Pods are rejected.", Source: "seed 004", Specs: []string{"C"}},
}

func TestSummary(t *testing.T) {
	if got, want := SummaryLine(sample), "3 clauses, 2 covered, 1 uncovered"; got != want {
		t.Errorf("SummaryLine = %q, want %q", got, want)
	}
	if got, want := SummaryLine(nil), "0 clauses, 0 covered, 0 uncovered"; got != want {
		t.Errorf("SummaryLine(nil) = %q, want %q", got, want)
	}
}

func TestWriteTextGroupsByAreaInAreaOrder(t *testing.T) {
	// Given out of area order: the node clause first.
	in := []Clause{sample[2], sample[0], sample[1]}
	var b bytes.Buffer
	if err := WriteText(&b, in); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"order.first\n    promise:  Mutators run first.\n    source:   seed 000\n    specs:    A, B\n",
		"order.second\n", "    specs:    " + Uncovered + "\n    optional: SomeFeature\n",
		"    specs:    C\n",
		string(Ordering) + " (2)\n", string(ReviewRequest) + " (0)\n  (no clauses)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "\n3 clauses, 2 covered, 1 uncovered\n") {
		t.Errorf("text output does not end with the summary line:\n%s", out)
	}
	last := -1
	for _, a := range Areas {
		i := strings.Index(out, string(a)+" (")
		if i < 0 || i < last {
			t.Fatalf("area %q missing or out of order:\n%s", a, out)
		}
		last = i
	}
	if strings.Index(out, "order.first") > strings.Index(out, "node.third") {
		t.Errorf("the node clause is printed before the ordering ones:\n%s", out)
	}
}

func TestWriteMarkdownEscapesCells(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, sample); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		MarkdownHeader,
		"\n3 clauses, 2 covered, 1 uncovered.\n",
		"## " + string(Ordering) + "\n\n2 clauses, 1 covered.\n\n| ID | Promise | Source | Specs |\n| --- | --- | --- | --- |\n",
		"| `order.first` | Mutators run first. | seed 000 | `A`, `B` |\n",
		"| `order.second` | A '\\*/\\*' rule \\| matches &lt;everything&gt;. *Optional feature: `SomeFeature`.* | seed 002 Rule\\_x | **UNCOVERED** |\n",
		"## " + mdEscape(string(ReviewRequest)) + "\n\nNo clauses yet.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| `") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 5 {
			t.Errorf("table row does not have four cells: %s", line)
		}
	}
}

func TestRegisteredClausesAreValidAndUnique(t *testing.T) {
	all := All()
	if len(all) == 0 {
		t.Fatal("no clauses registered")
	}
	seen := map[string]bool{}
	for _, c := range all {
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
		if seen[c.ID] {
			t.Errorf("clause %s listed twice", c.ID)
		}
		seen[c.ID] = true
		if got, ok := Lookup(c.ID); !ok || got.ID != c.ID {
			t.Errorf("Lookup(%q) = %v, %v", c.ID, got.ID, ok)
		}
		specs := map[string]bool{}
		for _, s := range c.Specs {
			if specs[s] {
				t.Errorf("clause %s names spec %s twice", c.ID, s)
			}
			specs[s] = true
		}
	}
}

// TestContractDocsUpToDate keeps docs/contract.md what the inventory
// renders. The file goes on with the release table, which
// internal/contract/release renders and checks in full (its own
// TestContractDocsUpToDate); here the clause part must be the file's start.
func TestContractDocsUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "contract.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read %s (%v): run `make contract-docs`", path, err)
	}
	var want bytes.Buffer
	if err := WriteMarkdown(&want, All()); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, want.Bytes()) {
		t.Fatalf("docs/contract.md is out of date with internal/contract: run `make contract-docs` (first difference at line %d)",
			firstDifferentLine(got[:min(len(got), want.Len())], want.Bytes()))
	}
	if rest := got[want.Len():]; len(rest) > 0 && !bytes.HasPrefix(rest, []byte("\n## Release guard: ")) {
		t.Fatalf("docs/contract.md has more clauses than internal/contract: run `make contract-docs` (first difference at line %d)",
			firstDifferentLine(got, want.Bytes()))
	}
}

func firstDifferentLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
