package main

import (
	"slices"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/nodes/hollow"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// The values of the hidden --node-fault flag: deliberately broken nodes the
// harness's own tests run the nodeadmit suite against.
const (
	faultNoPredicates    = string(hollow.NoPredicates)
	faultReasonsDiffer   = string(hollow.ReasonsDiffer)
	faultPluginsFailOpen = "plugins-fail-open"
	// faultNoPluginHost is not broken but bare: nodes as upstream ships
	// them, without the KEP-2823 plugin host.
	faultNoPluginHost = "no-plugin-host"
)

// validateNodes checks --nodes and --node-fault.
func (o *runOptions) validateNodes() error {
	if o.Nodes < 0 {
		return usageError("--nodes must be 0 or more, got %d", o.Nodes)
	}
	switch o.nodeFault {
	case "", faultNoPredicates, faultReasonsDiffer, faultPluginsFailOpen, faultNoPluginHost:
		return nil
	}
	return usageError("--node-fault: unknown fault %q: use %s, %s, %s or %s", o.nodeFault,
		faultNoPredicates, faultReasonsDiffer, faultPluginsFailOpen, faultNoPluginHost)
}

// nodeSpec is the shape of the embedded cluster's nodes (validated first).
func (o *runOptions) nodeSpec() nodes.Spec {
	s := nodes.DefaultSpec()
	switch o.nodeFault {
	case faultNoPredicates, faultReasonsDiffer:
		s.Broken = hollow.Broken(o.nodeFault)
	case faultPluginsFailOpen:
		s.PluginsFailOpen = true
	case faultNoPluginHost:
		s.PluginHost = false
	}
	return s
}

// nodeCount is how many nodes to start: none unless the selection can
// include a spec that uses nodes (the nodeadmit suite, and specs needing
// NodeAdmission), since each node costs a process and a ten-second warm-up.
func (o *runOptions) nodeCount() int {
	if o.Nodes == 0 || !o.mayRun(usesNodes) {
		return 0
	}
	return o.Nodes
}

// usesNodes reports whether a spec places pods on nodes.
func usesNodes(s spec.Spec) bool {
	return s.Suite == "nodeadmit" || slices.Contains(s.Features, features.NodeAdmission)
}
