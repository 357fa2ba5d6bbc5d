package runconfig

import (
	"github.com/admission-conformance/admission-conformance/framework/cluster/embedded"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// NoPropagationPlaneFlag runs the propagation specs on the run's one
// cluster, behind the quiet gate.
const NoPropagationPlaneFlag = "no-propagation-plane"

// PropagationPlane reports whether a run starts a propagation plane beside
// its cluster: a second embedded control plane of the same build and
// options (no nodes, no reference initializers) where the specs that
// measure how fast a configuration change is enforced run, one per
// configuration kind at a time, while the other specs run on the first.
// On one cluster those specs hold every other case's writes of their kind
// off (package quiet), so a run waits for them; on their own control
// plane nothing waits and nothing else's churn can hide a late change.
// Only a parallel embedded run that can select such a spec starts one.
func (o *Config) PropagationPlane() bool {
	if o.NoPropagationPlane || o.Provider != embedded.Name || o.InCluster || o.Child != nil ||
		o.Repeat > 1 || o.Workers() <= 1 || o.SelectedSpecs() <= 1 {
		return false
	}
	return o.mayRun(OnPropagationPlane)
}

// OnPropagationPlane reports whether a spec runs on the propagation plane
// when the run has one: it measures enforcement (spec.Isolation.Quiet)
// and places no pod on a node (the plane has none).
func OnPropagationPlane(s spec.Spec) bool {
	return len(s.Isolation.Quiet) > 0 && !UsesNodes(s)
}
