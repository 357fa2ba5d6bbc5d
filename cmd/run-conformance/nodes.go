package main

import (
	"slices"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/nodes/hollow"
)

// The values of the hidden --node-fault flag: deliberately broken nodes the
// harness's own tests run the nodeadmit suite against.
const (
	faultNoPredicates    = string(hollow.NoPredicates)
	faultReasonsDiffer   = string(hollow.ReasonsDiffer)
	faultPluginsFailOpen = "plugins-fail-open"
)

// validateNodes checks --nodes and --node-fault.
func (o *runOptions) validateNodes() error {
	if o.Nodes < 0 {
		return usageError("--nodes must be 0 or more, got %d", o.Nodes)
	}
	switch o.nodeFault {
	case "", faultNoPredicates, faultReasonsDiffer, faultPluginsFailOpen:
		return nil
	}
	return usageError("--node-fault: unknown fault %q: use %s, %s or %s", o.nodeFault, faultNoPredicates, faultReasonsDiffer, faultPluginsFailOpen)
}

// nodeSpec is the shape of the embedded cluster's nodes (validated first).
func (o *runOptions) nodeSpec() nodes.Spec {
	s := nodes.DefaultSpec()
	switch o.nodeFault {
	case faultNoPredicates, faultReasonsDiffer:
		s.Broken = hollow.Broken(o.nodeFault)
	case faultPluginsFailOpen:
		s.PluginsFailOpen = true
	}
	return s
}

// nodeCount is how many nodes to start: none when the run selects suites
// and nodeadmit is not among them, since only its specs use nodes and each
// node costs a process and a ten-second warm-up.
func (o *runOptions) nodeCount() int {
	if len(o.Suites) == 0 || slices.Contains(o.Suites, "nodeadmit") {
		return o.Nodes
	}
	return 0
}
