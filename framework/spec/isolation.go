package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/quiet"
)

// Isolation says what a spec's cases may run beside when `run --parallel`
// runs specs at the same time against one cluster. Every case has its own
// namespace and its own scoped webhooks, so most specs need nothing here.
// A spec that changes state other cases can see, or whose outcome such
// changes or concurrent work would distort, declares it.
type Isolation struct {
	// Serial cases run alone: no other spec runs meanwhile on the cluster
	// (a propagation plane's go on). For specs that change what any case
	// can see (a node's taints or capacity) and for specs measuring
	// parallelism or a timing that a busy apiserver would push past its
	// bound. Serial specs that also hold the nodes state (Exclusive
	// NodesState) run beside each other when there are several nodes, each
	// on its own: they bind their pods to it by name, and nothing else runs
	// that could place a pod there.
	Serial bool `json:"serial,omitempty"`
	// Exclusive names shared state (one of States) the spec changes: it runs
	// beside no spec that names the same state, here or in Shares.
	Exclusive []string `json:"exclusive,omitempty"`
	// Shares names shared state the spec uses, which a spec holding it
	// exclusive would disturb: it runs beside other specs sharing it, never
	// beside one holding it exclusive.
	Shares []string `json:"shares,omitempty"`
	// Quiet names the configuration kinds whose enforcement the spec
	// measures, or whose every configuration its observation counts:
	// while one of its cases runs, no other case of the run writes a
	// configuration of those kinds (see package quiet), so a neighbour's
	// churn cannot refresh the apiserver's view early and hide a late one.
	// Other cases run on meanwhile; only their writes of those kinds wait.
	// A parallel embedded run runs such specs (those placing no pod on a
	// node) on its propagation plane, a second control plane where every
	// spec holds the windows of its kinds: a spec that is also Serial holds
	// its windows there instead of running alone.
	Quiet []quiet.Kind `json:"quiet,omitempty"`
	// Reason says why, in one sentence; required unless the isolation is
	// zero.
	Reason string `json:"reason,omitempty"`
}

// The shared states specs may name.
const (
	// NodesState is the harness's nodes: their pod capacity, their
	// kubelets' admission (a node's plugin host asks the installed plugins
	// about every pod bound to the node, one pod at a time) and each node's
	// plugin host configuration (one file per node). Specs that place pods
	// on nodes share it; specs that install node plugins hold it.
	NodesState = "nodes"
	// InitializersState is the reference initializers installed for the
	// run, which act on every initializers-suite namespace of the run: its
	// poller, webhook and controller. The harness scopes each
	// InitializerConfiguration to its spec's namespace, so the suite's specs
	// share it; a spec that cuts the poller off (every creation in the
	// suite's namespaces is then refused) holds it. Reference initializers
	// installed elsewhere (claimed, not installed by the harness) apply
	// every configuration everywhere: a parallel run then treats sharing as
	// holding.
	InitializersState = "initializers"

	// StaticManifestsState is the apiservers' static admission manifest
	// directories (cluster.StaticManifests): one set per replica for the
	// whole cluster, loaded all or nothing. Specs writing scoped files into
	// them share it; a spec writing an invalid file (which makes every
	// reload fail, so no other spec's file would be loaded) or hashing the
	// directories holds it.
	StaticManifestsState = "static-manifests"
)

// States lists the states Exclusive and Shares may name.
var States = []string{NodesState, InitializersState, StaticManifestsState}

// IsZero reports whether the spec may run beside any other.
func (i Isolation) IsZero() bool {
	return !i.Serial && len(i.Exclusive) == 0 && len(i.Shares) == 0 && len(i.Quiet) == 0
}

// Validate checks the isolation of a spec.
func (i Isolation) Validate() error {
	for _, s := range append(slices.Clone(i.Exclusive), i.Shares...) {
		if !slices.Contains(States, s) {
			return fmt.Errorf("unknown shared state %q: use one of %s", s, strings.Join(States, ", "))
		}
	}
	for _, k := range i.Quiet {
		if err := k.Validate(); err != nil {
			return err
		}
	}
	for _, s := range i.Shares {
		if slices.Contains(i.Exclusive, s) {
			return fmt.Errorf("state %s is both exclusive and shared", s)
		}
	}
	if !i.IsZero() && i.Reason == "" {
		return fmt.Errorf("isolation needs a Reason")
	}
	if i.IsZero() && i.Reason != "" {
		return fmt.Errorf("isolation has a Reason but no Serial, Exclusive, Shares or Quiet")
	}
	return nil
}

// String is the short form `list` shows, e.g. "serial",
// "exclusive:nodes", "shares:initializers,nodes" or "-".
func (i Isolation) String() string {
	var parts []string
	if i.Serial {
		parts = append(parts, "serial")
	}
	if len(i.Exclusive) > 0 {
		parts = append(parts, "exclusive:"+strings.Join(i.Exclusive, ","))
	}
	if len(i.Shares) > 0 {
		parts = append(parts, "shares:"+strings.Join(i.Shares, ","))
	}
	if len(i.Quiet) > 0 {
		kinds := make([]string, len(i.Quiet))
		for n, k := range i.Quiet {
			kinds[n] = string(k)
		}
		parts = append(parts, "quiet:"+strings.Join(kinds, ","))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}
