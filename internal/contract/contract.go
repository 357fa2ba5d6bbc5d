// Package contract is the inventory of the admission contract: every promise
// a webhook, a policy or a node plugin relies on, where it is written down,
// and the specs that check it. `run-conformance list --contract` prints it
// and docs/contract.md is generated from it (a test keeps the two in sync).
//
// Clauses live in one file per area (clauses_<area>.go) and name the specs
// that check them by ShortName. A clause with no spec is listed as
// uncovered; a clause naming a spec that does not exist is an error the
// inventory's tests report.
package contract

import (
	"fmt"
	"regexp"
	"sort"
	"sync"
)

// Area groups clauses the way the issue and the reports talk about them.
type Area string

// The areas, in the order the inventory prints them.
const (
	Ordering         Area = "Mutate before validate, and the chain"
	ReviewRequest    Area = "AdmissionReview request content"
	WebhookAnswer    Area = "What the apiserver does with a webhook's answer"
	FailurePolicy    Area = "Failure policies and timeouts"
	Matching         Area = "Which requests a webhook is called for"
	ConfigurationAPI Area = "The configuration API: defaults and validation"
	Propagation      Area = "Configuration changes enforced within their bound"
	StaticConfig     Area = "Static (manifest-based) admission configuration"
	ConditionalAuthz Area = "Conditional authorization enforced at admission"
	CELPolicies      Area = "CEL admission policies"
	Initializers     Area = "Initializers (scheduling gates and seed 002's initializers)"
	NodeAdmission    Area = "Node-side pod admission (kubelet and KEP-2823 plugins)"
)

// Areas lists every area in print order.
var Areas = []Area{Ordering, ReviewRequest, WebhookAnswer, FailurePolicy, Matching, ConfigurationAPI, Propagation, StaticConfig, ConditionalAuthz, CELPolicies, Initializers, NodeAdmission}

// Clause is one promise of the admission contract.
type Clause struct {
	// ID is unique, lower-case words joined by dots and dashes, led by the
	// area's prefix, e.g. "review.old-object.update".
	ID   string
	Area Area
	// Promise says in one sentence what an implementation must do.
	Promise string
	// Source is where the promise is written: a seed clause ("seed 001
	// Attributes.GetOldObject"), an API reference field
	// ("admission.k8s.io/v1 AdmissionRequest.oldObject"), a KEP.
	Source string
	// Specs are the ShortNames of the specs that check the promise.
	Specs []string
	// Optional names an optional API feature the promise depends on; the
	// specs checking it are then in the extended profile.
	Optional string
}

var clauseID = regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$`)

// Validate checks a clause's own fields (not whether its specs exist).
func (c Clause) Validate() error {
	if !clauseID.MatchString(c.ID) {
		return fmt.Errorf("clause %q: ID must be dotted lower-case words", c.ID)
	}
	known := false
	for _, a := range Areas {
		known = known || a == c.Area
	}
	if !known {
		return fmt.Errorf("clause %s: unknown area %q", c.ID, c.Area)
	}
	if c.Promise == "" || c.Source == "" {
		return fmt.Errorf("clause %s: Promise and Source are required", c.ID)
	}
	return nil
}

// Covered reports whether any spec is named.
func (c Clause) Covered() bool { return len(c.Specs) > 0 }

var registry = struct {
	sync.Mutex
	clauses map[string]Clause
}{clauses: map[string]Clause{}}

// Register adds clauses from a package init (var _ = contract.Register(...)).
// An invalid or duplicate clause panics: a bug found when the binary starts.
func Register(clauses ...Clause) bool {
	registry.Lock()
	defer registry.Unlock()
	for _, c := range clauses {
		if err := c.Validate(); err != nil {
			panic(err)
		}
		if _, taken := registry.clauses[c.ID]; taken {
			panic(fmt.Sprintf("contract clause %s registered twice", c.ID))
		}
		registry.clauses[c.ID] = c
	}
	return true
}

// All returns every clause, by area order then ID.
func All() []Clause {
	registry.Lock()
	defer registry.Unlock()
	order := map[Area]int{}
	for i, a := range Areas {
		order[a] = i
	}
	out := make([]Clause, 0, len(registry.clauses))
	for _, c := range registry.clauses {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Area != out[j].Area {
			return order[out[i].Area] < order[out[j].Area]
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Lookup returns the clause with id.
func Lookup(id string) (Clause, bool) {
	registry.Lock()
	defer registry.Unlock()
	c, ok := registry.clauses[id]
	return c, ok
}

// Check reports every clause that names a spec known does not accept, so a
// clause marked covered always names a spec that exists.
func Check(known func(shortName string) bool) error {
	var bad []string
	for _, c := range All() {
		for _, s := range c.Specs {
			if !known(s) {
				bad = append(bad, fmt.Sprintf("clause %s names spec %s, which does not exist", c.ID, s))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d clause(s) name unknown specs: %v", len(bad), bad)
	}
	return nil
}
