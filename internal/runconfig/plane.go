package runconfig

import (
	"slices"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
)

// NoPropagationPlaneFlag runs the propagation specs on the run's one
// cluster, behind the quiet gate.
const NoPropagationPlaneFlag = "no-propagation-plane"

// MaxPropagationPlanes is the most propagation planes a run starts: two
// split a full default run's longest chain of one kind (the validating
// policy specs, about 33 s and 19 s, which must not run beside each other
// on one control plane) and leave the planes shorter than the cluster; a
// third would only add a control plane's memory and CPU.
const MaxPropagationPlanes = 2

// PropagationPlanes is how many propagation planes a run starts beside its
// cluster: second embedded control planes of the same build and options
// (no nodes, no reference initializers) where the specs that measure how
// fast a configuration change is enforced run, one per configuration kind
// at a time on each, while the other specs run on the cluster. On one
// cluster those specs hold every other case's writes of their kind off
// (package quiet), so a run waits for them; on control planes of their own
// nothing waits and nothing else's churn can hide a late change. Only a
// parallel embedded run that can select such specs starts them: as many as
// the kind with the most such specs has (at most MaxPropagationPlanes).
func (o *Config) PropagationPlanes() int {
	if o.NoPropagationPlane || o.Provider != embedded.Name || o.InCluster || o.Child != nil ||
		o.Repeat > 1 || o.Workers() <= 1 || o.SelectedSpecs() <= 1 {
		return 0
	}
	selects, ok := o.selects()
	holders := map[quiet.Kind]int{}
	most := 0
	for _, s := range spec.All() {
		if !OnPropagationPlane(s) || ok && !selects(s) {
			continue
		}
		for _, k := range s.Isolation.Quiet {
			holders[k]++
			most = max(most, holders[k])
		}
	}
	return min(most, MaxPropagationPlanes)
}

// OnPropagationPlane reports whether a spec runs on a propagation plane
// when the run has one: it measures enforcement (spec.Isolation.Quiet),
// places no pod on a node and needs no reference initializers (the planes
// have neither).
func OnPropagationPlane(s spec.Spec) bool {
	return len(s.Isolation.Quiet) > 0 && !UsesNodes(s) && !slices.Contains(s.Features, features.ReferenceInitializers)
}
