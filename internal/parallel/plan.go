// Package parallel runs a selection of specs as several worker processes
// against one cluster (run --parallel): which specs go together (units),
// in which order and beside which others they run (Schedule), what a
// worker needs to reach the parent's cluster (Attach), and how the workers'
// results become the run's one results.json (Merge).
package parallel

import (
	"slices"
	"sort"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Unit is what one worker process runs: the selected cases of one spec,
// or of a batch of short specs (Batch).
type Unit struct {
	Spec spec.Spec
	// Also are a batch's other specs, which need no isolation (Batch).
	Also []spec.Spec
	// Cases are the full names of the selected cases, in plan order.
	Cases []string
	// Estimate is how long the cases took last time, or else the kept
	// estimate (DefaultEstimates) or a guess.
	Estimate time.Duration
	// Known says Estimate comes from an earlier run.
	Known bool
	// NeedsNodes: the spec places pods on nodes (it waits for them when
	// they start after the control plane).
	NeedsNodes bool
	// Plane is the run's propagation plane the unit runs on, from 1 (0:
	// the cluster): another control plane beside the cluster
	// (internal/engine's plane.go), whose quiet windows are its own, so the
	// unit holds them there and the cluster's writers never wait for it.
	Plane int
	// NodeSlot is the node a unit holding spec.NodesState was given by
	// Schedule, when the run has several alike (0 otherwise): its cases use
	// the NodeSlot-th node with the capability they need (the worker's
	// options file carries it to harness.Env.NodeSlot).
	NodeSlot int
}

// Serial reports whether the unit runs alone.
func (u Unit) Serial() bool { return u.Spec.Isolation.Serial }

// Name is the spec's suite/ShortName (a batch's first, and how many more).
func (u Unit) Name() string {
	if len(u.Also) > 0 {
		return u.batchName()
	}
	return u.Spec.Suite + "/" + u.Spec.ShortName
}

// guessPerCase is the estimate of a case no earlier run timed.
const guessPerCase = 500 * time.Millisecond

// Units groups the selected cases of a plan (runner.Plan; selected is
// runner.Selected) by spec, in plan order, with estimates from previous
// (an earlier run's results; nil if none). needsNodes says which specs
// place pods on nodes. Cases that belong to no registered spec are left
// out: nothing could select them alone.
func Units(plan []results.Spec, selected func(results.Spec) bool, previous *results.Results, needsNodes func(spec.Spec) bool) []Unit {
	var took map[string]float64 // seconds, by spec
	if previous != nil {
		took = EstimatesOf(*previous).Seconds
	}
	var units []Unit
	index := map[string]int{}
	for _, c := range plan {
		if !selected(c) {
			continue
		}
		meta, ok := spec.Lookup(c.ShortName)
		if !ok {
			continue
		}
		i, seen := index[c.ShortName]
		if !seen {
			i = len(units)
			index[c.ShortName] = i
			units = append(units, Unit{Spec: meta, NeedsNodes: needsNodes != nil && needsNodes(meta)})
		}
		units[i].Cases = append(units[i].Cases, c.Name)
	}
	for i := range units {
		u := &units[i]
		if d, ok := took[u.Spec.ShortName]; ok {
			u.Estimate, u.Known = time.Duration(d*float64(time.Second)), true
		} else {
			u.Estimate = estimate(u.Spec.ShortName, len(u.Cases))
		}
	}
	return units
}

// priority orders the units a worker may pick: first those at the head of
// the longest chain (the units holding one exclusive state run one after
// the other, so a long chain must start early), then the longest.
func priority(units []Unit, pending []int) []int {
	chain := map[string]time.Duration{}
	for _, i := range pending {
		for _, s := range units[i].holds() {
			chain[s] += units[i].Estimate
		}
	}
	key := func(i int) time.Duration {
		k := units[i].Estimate
		for _, s := range units[i].holds() {
			k = max(k, chain[s])
		}
		return k
	}
	out := slices.Clone(pending)
	sort.SliceStable(out, func(a, b int) bool {
		ka, kb := key(out[a]), key(out[b])
		if ka != kb {
			return ka > kb
		}
		return units[out[a]].Estimate > units[out[b]].Estimate
	})
	return out
}

// HoldShared makes every unit that shares state hold it instead, for a run
// where the state cannot be shared (reference initializers the harness did
// not install apply every configuration to every namespace they act on).
func HoldShared(units []Unit, state string) {
	for i := range units {
		iso := &units[i].Spec.Isolation
		if slices.Contains(iso.Shares, state) {
			iso.Shares = slices.DeleteFunc(slices.Clone(iso.Shares), func(s string) bool { return s == state })
			iso.Exclusive = append(slices.Clone(iso.Exclusive), state)
		}
	}
}
