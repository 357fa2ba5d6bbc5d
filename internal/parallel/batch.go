package parallel

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// BatchTarget is how long a batch of short specs is expected to take.
// Every worker process costs about 0.2 CPU-s before its first case (Go
// initialising this binary's packages, Ginkgo building and ordering the
// tree of every spec, the field inventory), whatever it runs; a full run
// has about a hundred specs of a second or less, and on two CPUs that
// start-up was a fifth of the run's CPU. One worker for a few of them
// pays it once; a batch short enough still leaves the schedule room.
const BatchTarget = 6 * time.Second

// Batch groups the units that may run beside anything and need nothing
// but the cluster (zero isolation, no node, not on the propagation plane)
// and are expected to take less than half of target into units of several
// specs, each expected to take at most target, in plan order. One worker
// runs a batch's specs one after another (its label filter names them
// all). The other units are left as they are.
func Batch(units []Unit, target time.Duration) []Unit {
	var out []Unit
	open := -1 // the batch being filled, in out
	for _, u := range units {
		if !u.Spec.Isolation.IsZero() || u.NeedsNodes || u.Plane > 0 || u.Estimate >= target/2 {
			out = append(out, u)
			continue
		}
		if open >= 0 && out[open].Estimate+u.Estimate <= target {
			b := &out[open]
			b.Also = append(b.Also, u.Spec)
			b.Cases = append(slices.Clone(b.Cases), u.Cases...)
			b.Estimate += u.Estimate
			b.Known = b.Known && u.Known
			continue
		}
		open = len(out)
		out = append(out, u)
	}
	return out
}

// Specs are the unit's specs: one, or a batch's.
func (u Unit) Specs() []spec.Spec { return append([]spec.Spec{u.Spec}, u.Also...) }

// LabelFilter selects the unit's specs (the label every spec carries,
// spec:SHORTNAME).
func (u Unit) LabelFilter() string {
	var terms []string
	for _, s := range u.Specs() {
		terms = append(terms, "spec:"+s.ShortName)
	}
	return strings.Join(terms, " || ")
}

// SpecOf is the spec of the unit that the case (a full name, which starts
// with the spec's short name) belongs to.
func (u Unit) SpecOf(caseName string) spec.Spec {
	for _, s := range u.Also {
		if strings.HasPrefix(caseName, s.ShortName+" ") {
			return s
		}
	}
	return u.Spec
}

// name is Name for a batch: its first spec and how many more.
func (u Unit) batchName() string {
	return fmt.Sprintf("%s/%s (+%d more)", u.Spec.Suite, u.Spec.ShortName, len(u.Also))
}
