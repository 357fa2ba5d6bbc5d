package main

import (
	"fmt"
	"slices"

	"github.com/admission-conformance/admission-conformance/framework/ceilings"
	"github.com/admission-conformance/admission-conformance/framework/cluster/embedded"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kind"
)

// Every count a user gives (run's --apiservers, --nodes, --parallel and
// --kind-topology; matrix's --parallel) is checked against what this
// machine holds (framework/ceilings) before anything starts; --no-ceilings
// (options file: noCeilings) skips the check.

const noCeilingsFlag = "no-ceilings"

const noCeilingsHelp = "do not check --apiservers, --nodes, --parallel and --kind-topology against what this machine holds " +
	"(its free memory and CPUs, at measured costs per part; see docs/running.md, Ceilings), nor --repeat against its ceiling of 100"

// overCeiling is the one line a count over its ceiling gets.
func overCeiling(err error) error {
	return usageError("%v; pass --%s to run it anyway", err, noCeilingsFlag)
}

// kindContainers is how many containers a kind topology runs on this host.
func kindContainers(topology string) int {
	switch kind.Topology(topology) {
	case kind.Multi:
		return 3
	case kind.HA:
		return 5 // three control planes, a worker, the load balancer
	}
	return 1
}

// hostLoad is what the run holds on this machine.
func (o *runOptions) hostLoad() ceilings.Load {
	l := ceilings.Load{ClusterStart: o.Bounds.ClusterStart.Duration}
	switch o.Provider {
	case embedded.Name:
		l.ControlPlane, l.APIServers, l.Nodes = true, o.APIServers, o.Nodes
	case kind.Name:
		l.KindNodes = kindContainers(o.Kind.Topology)
	}
	if !o.InCluster {
		l.Workers = o.workers() // an in-cluster run's run in its pod
	}
	return l
}

// checkCeilings refuses a count over this machine's ceiling. Workers
// (--attach) and an in-cluster run's pod (which has the pod's limits, not
// this machine's) are not checked; nor is anything with --no-ceilings.
func (o *runOptions) checkCeilings() error {
	if o.NoCeilings || o.attach != "" || o.runID != "" {
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
			check{fmt.Sprintf("--nodes %d", o.Nodes), o.Nodes, 1, ceilings.Nodes})
	}
	if !o.InCluster {
		checks = append(checks, check{fmt.Sprintf("--parallel %d", o.Parallel), o.Parallel, defaultWorkers(), ceilings.Workers})
	}
	if l.KindNodes > 0 {
		checks = append(checks, check{fmt.Sprintf("--kind-topology %s (%d containers)", o.Kind.Topology, l.KindNodes), l.KindNodes, 1, ceilings.KindNodes})
	}
	for _, c := range checks {
		if err := m.Over(c.what, c.value, c.part, l, c.floor); err != nil {
			return overCeiling(err)
		}
	}
	return nil
}

// checkCeilings refuses a matrix that runs more at once than this machine
// holds: kind clusters (one per CPU, their node containers in memory) and
// target clients. The targets' own runs are not checked again.
func (p *matrixPlan) checkCeilings(noCeilings bool) error {
	defer func() {
		for i := range p.targets {
			p.targets[i].options.NoCeilings = true
		}
	}()
	if noCeilings {
		return nil
	}
	var containers []int
	for _, t := range p.targets {
		if t.options.Provider == kind.Name {
			containers = append(containers, kindContainers(t.options.Kind.Topology))
		}
	}
	atOnce := min(p.parallel, len(p.targets))
	kindsAtOnce := min(p.parallel, len(containers))
	// The largest kind clusters may be the ones running together.
	slices.Sort(containers)
	slices.Reverse(containers)
	l := ceilings.Load{Clients: atOnce, KindTargets: kindsAtOnce}
	for _, n := range containers[:kindsAtOnce] {
		l.KindNodes += n
	}
	m := ceilings.Read()
	checks := []struct {
		what  string
		value int
		part  ceilings.Part
	}{
		{fmt.Sprintf("--parallel %d (%d kind cluster(s) at once)", p.parallel, kindsAtOnce), kindsAtOnce, ceilings.KindTargets},
		{fmt.Sprintf("--parallel %d (%d kind node container(s) at once)", p.parallel, l.KindNodes), l.KindNodes, ceilings.KindNodes},
		{fmt.Sprintf("--parallel %d (%d target(s) at once)", p.parallel, atOnce), atOnce, ceilings.Clients},
	}
	for _, c := range checks {
		// Never below what the default --parallel (2) runs.
		if err := m.Over(c.what, c.value, c.part, l, 2); err != nil {
			return overCeiling(err)
		}
	}
	return nil
}
