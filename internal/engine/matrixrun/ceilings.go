package matrixrun

import (
	"fmt"
	"slices"

	"github.com/admission-conformance/admission-conformance/internal/ceilings"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// checkCeilings refuses a matrix that runs more at once than this machine
// holds: kind clusters (one per CPU, their node containers in memory) and
// target clients. The targets' own runs are not checked again.
func (p *Plan) checkCeilings(noCeilings bool) error {
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
			containers = append(containers, runconfig.KindContainers(t.options.Kind.Topology))
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
			return runconfig.OverCeiling(err)
		}
	}
	return nil
}
