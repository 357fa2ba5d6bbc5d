package matrixrun

import (
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// TestKindTargetsShareTheHostsWorkers: kind targets that run at once split
// the default spec workers; existing clusters and a chosen --parallel keep
// theirs.
func TestKindTargetsShareTheHostsWorkers(t *testing.T) {
	target := func(provider string) plannedTarget {
		return plannedTarget{options: runconfig.Config{Provider: provider}}
	}
	plan := &Plan{parallel: 3, targets: []plannedTarget{target("kind"), target("kind"), target("kind"), target("kubeconfig")}}
	shareHostWorkers(plan, 0)
	want := max(1, runconfig.DefaultWorkers()/3)
	for i, tg := range plan.targets {
		if got, w := tg.options.Parallel, map[bool]int{true: want, false: 0}[i < 3]; got != w {
			t.Errorf("target %d (%s): parallel %d, want %d", i, tg.options.Provider, got, w)
		}
	}
	chosen := &Plan{parallel: 3, targets: []plannedTarget{target("kind"), target("kind")}}
	shareHostWorkers(chosen, 5)
	alone := &Plan{parallel: 1, targets: []plannedTarget{target("kind"), target("kind")}}
	shareHostWorkers(alone, 0)
	for _, p := range []*Plan{chosen, alone} {
		for _, tg := range p.targets {
			if tg.options.Parallel != 0 || p.hostWorkers != 0 {
				t.Errorf("parallel %d, host workers %d: left to the run", tg.options.Parallel, p.hostWorkers)
			}
		}
	}
}
