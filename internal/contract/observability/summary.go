package observability

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/admission-conformance/admission-conformance/internal/contract/decision"
)

// Summary counts the inventory by kind and decision.
type Summary struct {
	Module                           string
	Annotations, Metrics, Forwarders int
	decision.Counts
}

// Summarize counts the pinned inventory against the table.
func Summarize() Summary { return summarize(Pinned(), Table) }

func summarize(inv Inventory, table map[string]Decision) Summary {
	s := Summary{Module: inv.Module, Annotations: len(inv.Annotations), Metrics: len(inv.Metrics), Forwarders: len(inv.Forwarders)}
	for _, id := range inv.IDs() {
		d, ok := table[id]
		s.Add(d, ok)
	}
	return s
}

// Line is the summary in one line.
func (s Summary) Line() string {
	return fmt.Sprintf("%s admission observability: %d audit annotation keys, %d metrics and %d annotation forwarders: %d mapped to clauses (%d of them with a gap), %d with only a gap, %d out of scope, %d unmapped",
		s.Module, s.Annotations, s.Metrics, s.Forwarders, s.Mapped, s.WithGap, s.OnlyGap, s.OutOfScope, s.Unmapped)
}

// WriteText prints every audit annotation key, metric and forwarder with
// its clauses, gap or reason, then the summary line.
func WriteText(w io.Writer) error { return writeText(w, Pinned(), Table) }

func writeText(w io.Writer, inv Inventory, table map[string]Decision) error {
	var b strings.Builder
	decision := func(id string) {
		d, ok := table[id]
		switch {
		case !ok:
			fmt.Fprintf(&b, "      UNMAPPED\n")
		case d.OutOfScope != "":
			fmt.Fprintf(&b, "      out of scope: %s\n", d.OutOfScope)
		default:
			if len(d.Clauses) > 0 {
				ids := slices.Clone(d.Clauses)
				slices.Sort(ids)
				fmt.Fprintf(&b, "      clauses: %s\n", strings.Join(ids, ", "))
			}
			if d.Gap != "" {
				fmt.Fprintf(&b, "      gap: %s\n", d.Gap)
			}
		}
	}
	fmt.Fprintf(&b, "Audit annotation keys (%s; {…} is computed at run time)\n", inv.Module)
	for _, a := range inv.Annotations {
		fmt.Fprintf(&b, "  %s  [level %s]\n", a.Key, a.Level)
		decision(a.ID())
	}
	fmt.Fprintf(&b, "\nMetrics\n")
	for _, m := range inv.Metrics {
		fmt.Fprintf(&b, "  %s  [%s, %s] {%s}\n", m.Name, m.Type, m.Stability, strings.Join(m.Labels, ", "))
		decision(m.ID())
	}
	fmt.Fprintf(&b, "\nAnnotation forwarders\n")
	for _, f := range inv.Forwarders {
		fmt.Fprintf(&b, "  %s  (%s)\n", f.Site, f.Call)
		decision(f.ID())
	}
	fmt.Fprintf(&b, "\n%s\n", summarize(inv, table).Line())
	_, err := io.WriteString(w, b.String())
	return err
}

// Entry is one key, metric or forwarder with its decision, as a JSON
// report would carry it.
type Entry struct {
	ID       string
	Decision Decision
}

// InventoryReport is the pinned inventory, every entry's decision, and
// the counts.
type InventoryReport struct {
	Inventory Inventory
	Entries   []Entry
	Summary   Summary
}

// Report returns the pinned inventory with its decisions.
func Report() InventoryReport {
	inv := Pinned()
	r := InventoryReport{Inventory: inv, Summary: Summarize()}
	for _, id := range inv.IDs() {
		r.Entries = append(r.Entries, Entry{ID: id, Decision: Table[id]})
	}
	return r
}
