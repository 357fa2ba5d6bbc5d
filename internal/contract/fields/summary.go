package fields

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/admission-conformance/admission-conformance/internal/contract/celenv"
	"github.com/admission-conformance/admission-conformance/internal/contract/decision"
)

// Summary counts the inventory by decision.
type Summary struct {
	// Paths counts every entry; CEL those of them under CELRoot.
	Paths, CEL int
	decision.Counts
}

// Summarize counts the pinned inventory against the table.
func Summarize() Summary {
	var s Summary
	for _, p := range Inventory() {
		s.Paths++
		if p.Root() == CELRoot {
			s.CEL++
		}
		d, ok := Table[string(p)]
		s.Add(d, ok)
	}
	return s
}

// Line is the summary in one line.
func (s Summary) Line() string {
	return fmt.Sprintf("%d field paths and %d CEL variables and libraries: %d mapped to clauses (%d of them with a gap), %d with only a gap, %d out of scope, %d unmapped",
		s.Paths-s.CEL, s.CEL, s.Mapped, s.WithGap, s.OnlyGap, s.OutOfScope, s.Unmapped)
}

// WriteText prints the table by root: each path with its clauses, gap or
// reason, then the summary line.
func WriteText(w io.Writer) error {
	var b strings.Builder
	root := ""
	for _, p := range Inventory() {
		if p.Root() != root {
			root = p.Root()
			fmt.Fprintf(&b, "\n%s\n", root)
		}
		d, ok := Table[string(p)]
		rel := strings.TrimPrefix(string(p), root+".")
		switch {
		case !ok:
			fmt.Fprintf(&b, "  %-58s UNMAPPED\n", rel)
		case d.OutOfScope != "":
			fmt.Fprintf(&b, "  %-58s out of scope: %s\n", rel, d.OutOfScope)
		default:
			ids := append([]string(nil), d.Clauses...)
			sort.Strings(ids)
			line := strings.Join(ids, ", ")
			if line == "" {
				line = "(no clause)"
			}
			fmt.Fprintf(&b, "  %-58s %s\n", rel, line)
			if d.Gap != "" {
				fmt.Fprintf(&b, "  %-58s   gap: %s\n", "", d.Gap)
			}
		}
	}
	if inv, err := celenv.Pinned(); err == nil {
		fmt.Fprintf(&b, "\n%s\n", inv.Line())
	}
	fmt.Fprintf(&b, "\n%s\n", Summarize().Line())
	_, err := io.WriteString(w, b.String())
	return err
}

// Field is one path with its decision, as `list --contract --coverage -o
// json` and results.json carry it.
type Field struct {
	Path     Path
	Decision Decision
}

// InventoryReport is every path with its decision, and the counts.
type InventoryReport struct {
	Fields  []Field
	Summary Summary
}

// Report returns the inventory with its decisions.
func Report() InventoryReport {
	r := InventoryReport{Summary: Summarize()}
	for _, p := range Inventory() {
		r.Fields = append(r.Fields, Field{Path: p, Decision: Table[string(p)]})
	}
	return r
}
