// Package decision is the verdict the contract's generated inventories
// (internal/contract/fields: field paths and the CEL environment;
// internal/contract/observability: audit annotation keys and metrics) give
// each entry: the clauses whose specs check it, what of it no spec checks
// yet, or why the admission contract needs nothing of it.
package decision

import "errors"

// Decision is the verdict on one inventory entry.
type Decision struct {
	// Clauses are contract clause IDs whose specs check the entry.
	Clauses []string `json:",omitempty"`
	// Gap says what of the entry no spec checks yet: it is listed as an
	// exception until a spec does.
	Gap string `json:",omitempty"`
	// OutOfScope says why the admission contract needs nothing of it.
	OutOfScope string `json:",omitempty"`
}

// Of is a decision naming clauses.
func Of(ids ...string) Decision { return Decision{Clauses: ids} }

// WithGap returns d saying what of the entry no spec checks.
func (d Decision) WithGap(why string) Decision { d.Gap = why; return d }

// OutOfScope is a decision that the contract needs nothing of the entry.
func OutOfScope(why string) Decision { return Decision{OutOfScope: why} }

// Validate checks a decision's own shape: out of scope and covered are
// exclusive, and a decision says something.
func (d Decision) Validate() error {
	switch {
	case d.OutOfScope != "" && (len(d.Clauses) > 0 || d.Gap != ""):
		return errors.New("OutOfScope excludes Clauses and Gap")
	case d.OutOfScope == "" && len(d.Clauses) == 0 && d.Gap == "":
		return errors.New("a decision needs Clauses, a Gap or OutOfScope")
	}
	return nil
}

// Counts counts an inventory's entries by decision.
type Counts struct {
	// Mapped entries have clauses; WithGap of them also name a gap.
	Mapped, WithGap int
	// OnlyGap entries have a gap and no clause: nothing checks them yet.
	OnlyGap    int
	OutOfScope int
	Unmapped   int
}

// Add counts one entry; decided says whether the table has d for it.
func (c *Counts) Add(d Decision, decided bool) {
	switch {
	case !decided:
		c.Unmapped++
	case d.OutOfScope != "":
		c.OutOfScope++
	case len(d.Clauses) > 0:
		c.Mapped++
		if d.Gap != "" {
			c.WithGap++
		}
	default:
		c.OnlyGap++
	}
}
