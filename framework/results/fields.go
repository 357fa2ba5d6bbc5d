package results

import "strings"

// The field use and coverage results.json carries. Their paths and the
// inventory coverage is measured against are the engine's
// (internal/contract/fields: by reflection over the pinned k8s.io/api and
// from the pinned apiserver's CEL environment); the types are here because
// results.json, and so this public package, exposes them.

// FieldPath is one field path: the root's name, then JSON field names
// joined by dots, "[]" after a list of objects, e.g.
// "MutatingWebhookConfiguration.webhooks[].rules[].operations"; the
// entries of the admission CEL environment are under the root "CEL".
type FieldPath string

// Root returns the root type's name.
func (p FieldPath) Root() string { return strings.SplitN(string(p), ".", 2)[0] }

// FieldUse is what one spec case did with the admission API's fields.
type FieldUse struct {
	// Set are the paths the configuration objects the case wrote (created,
	// updated, patched, dry runs and refused writes included) set.
	Set []FieldPath `json:"set,omitempty"`
	// Changed are the paths an update or patch changed on a live object.
	Changed []FieldPath `json:"changed,omitempty"`
	// Received are the AdmissionRequest paths the fake webhooks received.
	Received []FieldPath `json:"received,omitempty"`
	// Answered are the AdmissionResponse paths the fake webhooks answered.
	Answered []FieldPath `json:"answered,omitempty"`
	// CEL are the CEL environment's entries the expressions of the
	// configurations the apiserver accepted from the case use.
	CEL []FieldPath `json:"cel,omitempty"`
}

// Empty reports whether the case touched no field.
func (u FieldUse) Empty() bool {
	return len(u.Set)+len(u.Changed)+len(u.Received)+len(u.Answered)+len(u.CEL) == 0
}

// FieldCoverage is one path of the inventory in a run: its decision and
// the cases that exercised it.
type FieldCoverage struct {
	Path       FieldPath `json:"path"`
	Clauses    []string  `json:"clauses,omitempty"`
	Gap        string    `json:"gap,omitempty"`
	OutOfScope string    `json:"outOfScope,omitempty"`
	// Specs are the ShortNames of the specs whose cases exercised it.
	Specs []string `json:"specs,omitempty"`
	// How says how: set in a configuration written, changed on a live one,
	// received by a fake webhook, answered by one, used (a CEL entry) by an
	// accepted expression.
	How []string `json:"how,omitempty"`
}

// Coverage is the field coverage of one run.
type Coverage struct {
	// InScope counts the inventory's paths not out of scope; Exercised
	// those of them some case exercised, ChangedLive those some case
	// changed on a live object. Percent is Exercised over InScope.
	InScope     int     `json:"inScope"`
	Exercised   int     `json:"exercised"`
	ChangedLive int     `json:"changedLive"`
	Percent     float64 `json:"percent"`
	// CELInScope and CELExercised count the CEL environment's entries
	// (included in InScope and Exercised) on their own.
	CELInScope   int             `json:"celInScope"`
	CELExercised int             `json:"celExercised"`
	Fields       []FieldCoverage `json:"fields"`
}

// Unexercised returns the in-scope paths no case exercised.
func (c Coverage) Unexercised() []FieldCoverage {
	var out []FieldCoverage
	for _, f := range c.Fields {
		if f.OutOfScope == "" && len(f.Specs) == 0 {
			out = append(out, f)
		}
	}
	return out
}
