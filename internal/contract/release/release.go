// Package release is the release guard: from the pinned Kubernetes itself it
// lists every admission-related feature gate, every kube-apiserver
// admission plugin and every kubelet pod admit handler, and maps each to the
// contract clauses that cover it or to an explicit reason why none does.
// TestPinnedInventoryIsDecided fails when the pinned version has an item the
// table does not know, or the table has an entry the pinned version no
// longer has, so moving the pin forces the decision instead of hiding it.
//
// It lives apart from internal/contract because it links
// k8s.io/kubernetes (pkg/features and every admission plugin).
package release

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/admission-conformance/admission-conformance/internal/contract"
)

// Kind is what an inventoried item is.
type Kind string

// The kinds, in the order the table prints them.
const (
	Gate               Kind = "feature gate"
	APIServerPlugin    Kind = "kube-apiserver admission plugin"
	KubeletHandlerKind Kind = "kubelet pod admit handler"
)

// Kinds lists the kinds in print order.
var Kinds = []Kind{Gate, APIServerPlugin, KubeletHandlerKind}

// Item is one thing the pinned Kubernetes has.
type Item struct {
	Kind Kind
	Name string
	// Why says where the item comes from: for a gate, why the rule selects
	// it; for a plugin, its place in the order and whether it is on by
	// default; for a handler, its place in the chain and its guard.
	Why string
	// State is what the release changes about the item between versions:
	// a gate's stage, default and lock ("beta, on"); a plugin's default
	// ("on by default"); a handler's guard.
	State string `json:",omitempty"`
	// Place is the item's place in its order, from 1: a plugin's in
	// AllOrderedPlugins (0: not there), a handler's in the chain.
	Place int `json:",omitempty"`
}

// Inventory is every item of the pinned Kubernetes, by kind then name
// (handlers in chain order).
type Inventory struct {
	// Kubernetes is the pinned k8s.io/kubernetes version.
	Kubernetes string
	Items      []Item
}

// Disposition is how the table decides an item.
type Disposition string

// The dispositions.
const (
	// Mapped: contract clauses cover the item.
	Mapped Disposition = "clauses"
	// OutOfScope: the admission contract does not need it.
	OutOfScope Disposition = "out of scope"
	// NotObservable: the contract would care, but the harness cannot see
	// the behaviour where it runs.
	NotObservable Disposition = "not observable here"
)

// Entry is the table's decision about one item: exactly one of Clauses,
// OutOfScope and NotObservable is set.
type Entry struct {
	Kind Kind
	Name string
	// Since and Until bound the Kubernetes minors the entry is for
	// ("1.38": from 1.38 on; until "1.38": before 1.38), empty for
	// unbounded: a release that adds an item, removes it or changes what
	// it does gets an entry of its own from its minor on.
	Since string `json:",omitempty"`
	Until string `json:",omitempty"`
	// Clauses are contract clause IDs covering the item.
	Clauses []string `json:",omitempty"`
	// OutOfScope says in one sentence why the admission contract does not
	// need the item.
	OutOfScope string `json:",omitempty"`
	// NotObservable says in one sentence why the harness cannot observe
	// the item where it runs, although the contract would care.
	NotObservable string `json:",omitempty"`
}

// Disposition reports how e decides its item.
func (e Entry) Disposition() Disposition {
	switch {
	case len(e.Clauses) > 0:
		return Mapped
	case e.OutOfScope != "":
		return OutOfScope
	}
	return NotObservable
}

// Validate checks that exactly one disposition is given.
func (e Entry) Validate() error {
	n := 0
	for _, set := range []bool{len(e.Clauses) > 0, e.OutOfScope != "", e.NotObservable != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("%s %s: give exactly one of Clauses, OutOfScope and NotObservable (%d given)", e.Kind, e.Name, n)
	}
	for _, m := range []string{e.Since, e.Until} {
		if m != "" && !minorPattern.MatchString(m) {
			return fmt.Errorf("%s %s: Since and Until are minors like 1.38, got %q", e.Kind, e.Name, m)
		}
	}
	if e.Since != "" && e.Until != "" && !minorLess(e.Since, e.Until) {
		return fmt.Errorf("%s %s: Since %s is not before Until %s", e.Kind, e.Name, e.Since, e.Until)
	}
	return nil
}

var (
	minorPattern   = regexp.MustCompile(`^1\.[0-9]+$`)
	versionPattern = regexp.MustCompile(`^v1\.([0-9]+)\.[0-9]+(-(alpha|beta|rc)\.[0-9]+)?$`)
)

// Minor is the minor of a Kubernetes version ("v1.38.0-beta.0" -> "1.38"),
// empty if v is not one.
func Minor(v string) string {
	m := versionPattern.FindStringSubmatch(v)
	if m == nil {
		return ""
	}
	return "1." + m[1]
}

// IsPreRelease reports whether v is a Kubernetes pre-release
// (v1.38.0-beta.0).
func IsPreRelease(v string) bool {
	m := versionPattern.FindStringSubmatch(v)
	return m != nil && m[2] != ""
}

// minorLess: minor a is before minor b ("1.9" < "1.38").
func minorLess(a, b string) bool {
	var am, bm int
	fmt.Sscanf(a, "1.%d", &am)
	fmt.Sscanf(b, "1.%d", &bm)
	return am < bm
}

// For reports whether e is for Kubernetes version v.
func (e Entry) For(v string) bool {
	m := Minor(v)
	if m == "" {
		return e.Since == "" && e.Until == ""
	}
	return (e.Since == "" || !minorLess(m, e.Since)) && (e.Until == "" || minorLess(m, e.Until))
}

// At is the part of table that is for Kubernetes version v.
func At(table []Entry, v string) []Entry {
	var out []Entry
	for _, e := range table {
		if e.For(v) {
			out = append(out, e)
		}
	}
	return out
}

func key(k Kind, name string) string { return string(k) + " " + name }

// Check compares inv with table: an item the table does not decide is
// unknown; an entry for an item inv does not have is stale; an entry with
// no or several dispositions is invalid. The error says what to do.
func Check(inv Inventory, table []Entry) error {
	table = At(table, inv.Kubernetes)
	have := map[string]bool{}
	for _, it := range inv.Items {
		have[key(it.Kind, it.Name)] = true
	}
	decided := map[string]bool{}
	var problems []string
	for _, e := range table {
		k := key(e.Kind, e.Name)
		if decided[k] {
			problems = append(problems, fmt.Sprintf("%s %s is in the table twice", e.Kind, e.Name))
		}
		decided[k] = true
		if err := e.Validate(); err != nil {
			problems = append(problems, err.Error())
		}
		if !have[k] {
			problems = append(problems, fmt.Sprintf("stale: the table decides %s %s, which Kubernetes %s does not have (or the rule no longer selects): remove its entry", e.Kind, e.Name, inv.Kubernetes))
		}
	}
	for _, it := range inv.Items {
		if !decided[key(it.Kind, it.Name)] {
			problems = append(problems, fmt.Sprintf("unknown: Kubernetes %s has %s %s (%s), which the table does not decide: read its source, then add an entry to internal/contract/release/table.go mapping it to the contract clauses that cover it (add clauses and specs if it changes admission), or saying in one sentence why it is out of scope or not observable here", inv.Kubernetes, it.Kind, it.Name, it.Why))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the release table does not match Kubernetes %s (%d problem(s)):\n  %s", inv.Kubernetes, len(problems), strings.Join(problems, "\n  "))
	}
	return nil
}

// CheckClauses reports every clause ID the table names that the contract
// inventory does not register.
func CheckClauses(table []Entry) error {
	var missing []string
	for _, e := range table {
		for _, id := range e.Clauses {
			if _, ok := contract.Lookup(id); !ok {
				missing = append(missing, fmt.Sprintf("%s %s maps to clause %s, which internal/contract does not register", e.Kind, e.Name, id))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%d unknown clause(s):\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
	return nil
}

// GateNameRule is the first half of the written rule selecting the
// admission-related gates: a gate whose name says admission, webhooks, CEL,
// Pod Security or node-declared features.
var GateNameRule = regexp.MustCompile(`Admission|Webhook|CEL|PodSecurity|NodeDeclaredFeature`)

// SelectGates applies the written rule and the reviewed extras to every
// gate the pinned Kubernetes registers (all, by name): a gate is
// admission-related if GateNameRule matches its name, or admission code
// (AdmissionCode, AdmitHandlerCode) reads it (refs, from Derive), or
// ReviewedGates names it. It returns the selected gates with the reason
// each was selected, and an error for a reviewed gate that no longer exists
// or that the rule already selects.
func SelectGates(all []string, refs map[string][]string, reviewed map[string]string) ([]Item, error) {
	exists := map[string]bool{}
	var out []Item
	for _, g := range all {
		exists[g] = true
		var why []string
		if GateNameRule.MatchString(g) {
			why = append(why, "name matches the rule")
		}
		if files := refs[g]; len(files) > 0 {
			why = append(why, "read by admission code: "+strings.Join(files, ", "))
		}
		if r, ok := reviewed[g]; ok {
			if len(why) > 0 {
				return nil, fmt.Errorf("reviewed gate %s is already selected by the rule (%s): remove it from ReviewedGates", g, strings.Join(why, "; "))
			}
			why = append(why, "reviewed: "+r)
		}
		if len(why) > 0 {
			out = append(out, Item{Kind: Gate, Name: g, Why: strings.Join(why, "; ")})
		}
	}
	var gone []string
	for g := range reviewed {
		if !exists[g] {
			gone = append(gone, g)
		}
	}
	if len(gone) > 0 {
		sort.Strings(gone)
		return nil, fmt.Errorf("stale: ReviewedGates names %v, which the pinned Kubernetes does not register: remove them", gone)
	}
	return out, nil
}
