package runconfig

import (
	"fmt"

	"github.com/admission-conformance/admission-conformance/internal/ceilings"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
)

// Every count a user gives (run's --apiservers, --nodes, --parallel and
// --kind-topology; matrix's --parallel) is checked against what this
// machine holds (internal/ceilings) before anything starts; --no-ceilings
// (options file: noCeilings) skips the check.

// NoCeilingsFlag skips the checks against this machine.
const NoCeilingsFlag = "no-ceilings"

// OverCeiling is the one line a count over its ceiling gets.
func OverCeiling(err error) error {
	return exitcode.Usagef("%v; pass --%s to run it anyway", err, NoCeilingsFlag)
}

// KindContainers is how many containers a kind topology runs on this host.
func KindContainers(topology string) int {
	switch kind.Topology(topology) {
	case kind.Multi:
		return 3
	case kind.HA:
		return 5 // three control planes, a worker, the load balancer
	}
	return 1
}

// hostLoad is what the run holds on this machine.
func (o *Config) hostLoad() ceilings.Load {
	l := ceilings.Load{ClusterStart: o.Bounds.ClusterStart.Duration}
	switch o.Provider {
	case embedded.Name:
		l.ControlPlane, l.APIServers, l.Nodes = true, o.APIServers, o.Nodes
		l.PropagationPlanes = o.PropagationPlanes()
	case kind.Name:
		l.KindNodes = KindContainers(o.Kind.Topology)
	}
	if !o.InCluster {
		l.Workers = o.Workers() // an in-cluster run's run in its pod
	}
	return l
}

// checkCeilings refuses a count over this machine's ceiling. Workers
// and an in-cluster run's pod (which has the pod's limits, not
// this machine's) are not checked; nor is anything with --no-ceilings.
func (o *Config) checkCeilings() error {
	if o.NoCeilings || o.Child != nil {
		return nil
	}
	m := ceilings.Read()
	l := o.hostLoad()
	type check struct {
		what         string
		value, floor int
		part         ceilings.Part
	}
	var checks []check
	if l.ControlPlane {
		checks = append(checks, check{fmt.Sprintf("--apiservers %d", o.APIServers), o.APIServers, 1, ceilings.APIServers},
			check{fmt.Sprintf("--nodes %d", o.Nodes), o.Nodes, Default().Nodes, ceilings.Nodes})
	}
	if !o.InCluster {
		checks = append(checks, check{fmt.Sprintf("--parallel %d", o.Parallel), o.Parallel, DefaultWorkers(), ceilings.Workers})
	}
	if l.KindNodes > 0 {
		checks = append(checks, check{fmt.Sprintf("--kind-topology %s (%d containers)", o.Kind.Topology, l.KindNodes), l.KindNodes, 1, ceilings.KindNodes})
	}
	for _, c := range checks {
		err := m.Over(c.what, c.value, c.part, l, c.floor)
		if err == nil {
			continue
		}
		if c.part == ceilings.APIServers && l.PropagationPlanes > 0 {
			// The propagation planes have as many replicas: without them
			// the run may hold this many.
			alone := l
			alone.PropagationPlanes = 0
			if m.Over(c.what, c.value, c.part, alone, c.floor) == nil {
				return exitcode.Usagef("%v; pass --%s to run the propagation specs on the cluster (one control plane), or --%s to run it anyway",
					err, NoPropagationPlaneFlag, NoCeilingsFlag)
			}
		}
		return OverCeiling(err)
	}
	return nil
}
