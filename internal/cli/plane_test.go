package cli

import (
	"slices"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// TestPropagationPlaneOnlyForParallelEmbeddedRunsOfPropagationSpecs: the
// plane starts for a parallel embedded run that may select a spec measuring
// propagation, and for nothing else.
func TestPropagationPlaneOnlyForParallelEmbeddedRunsOfPropagationSpecs(t *testing.T) {
	if d := runconfig.Default(); d.PropagationPlanes() != runconfig.MaxPropagationPlanes {
		t.Errorf("the default run (embedded, parallel, every spec) starts %d planes, want %d", d.PropagationPlanes(), runconfig.MaxPropagationPlanes)
	}
	one := runconfig.Default()
	one.LabelFilter = "spec:PolicyFieldChanges || spec:WebhookFieldChanges || spec:MatchingScope"
	if n := one.PropagationPlanes(); n != 1 {
		t.Errorf("a run of one validating policy and one webhook propagation spec starts %d planes, want 1", n)
	}
	for name, change := range map[string]func(*runconfig.Config){
		"--no-propagation-plane": func(c *runconfig.Config) { c.NoPropagationPlane = true },
		"kind":                   func(c *runconfig.Config) { c.Provider = "kind" },
		"kubeconfig":             func(c *runconfig.Config) { c.Provider, c.Kubeconfig = "kubeconfig", "k" },
		"--parallel 1":           func(c *runconfig.Config) { c.Parallel = 1 },
		"--repeat 3":             func(c *runconfig.Config) { c.Repeat = 3 },
		"no propagation spec":    func(c *runconfig.Config) { c.Suites = []string{"nodeadmit"} },
		"a worker":               func(c *runconfig.Config) { c.Child = &runconfig.Child{Worker: &runconfig.WorkerRole{Attach: "a"}} },
	} {
		c := runconfig.Default()
		change(&c)
		if c.PropagationPlanes() != 0 {
			t.Errorf("%s: starts a plane", name)
		}
	}
	// Every spec on the plane measures a quiet window and needs neither a
	// node nor the reference initializers (a plane has none); there is at
	// least one of them.
	n := 0
	for _, s := range spec.All() {
		if runconfig.OnPropagationPlane(s) {
			n++
			initializers := slices.Contains(s.Features, features.ReferenceInitializers)
			if len(s.Isolation.Quiet) == 0 || runconfig.UsesNodes(s) || initializers {
				t.Errorf("%s is on the plane: quiet %v, uses nodes %v, reference initializers %v", s.ShortName, s.Isolation.Quiet, runconfig.UsesNodes(s), initializers)
			}
		}
	}
	if n == 0 {
		t.Error("no registered spec runs on the plane")
	}
	// A quiet holder needing the reference initializers stays on the
	// cluster.
	holder := spec.Spec{ShortName: "Holder", Suite: "initializers", Features: []features.Name{features.ReferenceInitializers},
		Isolation: spec.Isolation{Quiet: []quiet.Kind{quiet.WebhookConfigurations}, Reason: "r"}}
	if runconfig.OnPropagationPlane(holder) {
		t.Error("a quiet holder needing the reference initializers would run on a plane, which has none")
	}
}
