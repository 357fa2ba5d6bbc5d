// Package observability is the inventory of what the pinned apiserver's
// admission code lets an administrator observe: every audit annotation key
// (or key pattern) it adds to a request's audit event and every metric it
// registers, derived from the pinned k8s.io/apiserver sources
// (internal/contract/observability/derive, run by `go generate`; the result
// is zz_generated_pinned.go) and checked against the in-process metrics
// registry by the package's tests. Each key and metric has a decision in
// Table (table.go): the contract clauses whose specs assert it, or why the
// contract needs nothing of it. TestEveryEntryIsDecided fails on a key or
// metric the table does not decide and on a decision naming something the
// pinned sources no longer have.
//
// The run-conformance binary never derives: it reads the generated
// inventory, so it needs no Go module cache.
package observability

import "sort"

// Annotation is one audit annotation key admission code adds.
type Annotation struct {
	// Key is the key, with {…} standing for the parts known only at run
	// time, named after the Go expression that computes them, e.g.
	// "mutation.webhook.admission.k8s.io/round_{round}_index_{idx}".
	Key string
	// Level is the audit level from which the event carries the annotation
	// (Metadata, or Request for the webhook patches).
	Level string
	// Sites are where the key is added: module-relative file and function.
	Sites []string
}

// Metric is one metric admission code registers.
type Metric struct {
	// Name is the full Prometheus name (namespace_subsystem_name).
	Name string
	// Type is counter, gauge, histogram or summary.
	Type string
	// Labels are the variable labels, in declaration order.
	Labels []string
	// Stability is the declared stability level (ALPHA, BETA, STABLE).
	Stability string
	// Help is the declared help text (the registry prefixes the level).
	Help string
	// Site is the module-relative file declaring it.
	Site string
}

// Forwarder is a call adding audit annotations whose keys it does not
// choose: it passes on keys chosen elsewhere (an Attributes implementation
// storing what plugins add, the audit handler copying them into the event).
type Forwarder struct {
	Site string
	Call string
}

// Inventory is what the derivation found in the pinned sources.
type Inventory struct {
	// Module is the pinned module read, "k8s.io/apiserver v0.37.2".
	Module string
	// Packages are the package patterns read.
	Packages    []string
	Annotations []Annotation
	Metrics     []Metric
	Forwarders  []Forwarder
}

// Entry kinds: the prefix of an entry's ID.
const (
	AnnotationKind = "annotation"
	MetricKind     = "metric"
	ForwarderKind  = "forwarder"
)

// ID is the table key of an annotation.
func (a Annotation) ID() string { return AnnotationKind + " " + a.Key }

// ID is the table key of a metric.
func (m Metric) ID() string { return MetricKind + " " + m.Name }

// ID is the table key of a forwarder.
func (f Forwarder) ID() string { return ForwarderKind + " " + f.Site }

// Pinned returns the inventory of the pinned sources.
func Pinned() Inventory { return pinned }

// IDs returns every entry's table key, sorted.
func (inv Inventory) IDs() []string {
	var out []string
	for _, a := range inv.Annotations {
		out = append(out, a.ID())
	}
	for _, m := range inv.Metrics {
		out = append(out, m.ID())
	}
	for _, f := range inv.Forwarders {
		out = append(out, f.ID())
	}
	sort.Strings(out)
	return out
}

// Metric returns the metric called name.
func (inv Inventory) Metric(name string) (Metric, bool) {
	for _, m := range inv.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}
