package runconfig

import (
	"slices"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/internal/nodeset/hollow"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
)

// The values of the hidden --node-fault flag: deliberately broken nodes the
// harness's own tests run the nodeadmit suite against.
const (
	faultNoPredicates    = string(hollow.NoPredicates)
	faultReasonsDiffer   = string(hollow.ReasonsDiffer)
	faultPluginsFailOpen = "plugins-fail-open"
	// faultPluginsRejectLate holds each plugin rejection for the plugin
	// timeout.
	faultPluginsRejectLate = "plugins-reject-late"
	// faultPluginsIgnoreRejections admits pods plugins reject.
	faultPluginsIgnoreRejections = "plugins-ignore-rejections"
	// faultNoPluginHost is not broken but bare: nodes as upstream ships
	// them, without the KEP-2823 plugin host.
	faultNoPluginHost = "no-plugin-host"
)

// validateNodes checks --nodes and --node-fault.
func (o *Config) validateNodes() error {
	if o.Nodes < 0 {
		return exitcode.Usagef("--nodes must be 0 or more, got %d", o.Nodes)
	}
	switch o.NodeFault {
	case "", faultPluginsFailOpen, faultPluginsRejectLate, faultPluginsIgnoreRejections, faultNoPluginHost:
		return nil
	case faultNoPredicates, faultReasonsDiffer:
		if o.Provider == kind.Name {
			return exitcode.Usagef("--node-fault %s breaks the hollow kubelets' own admission: it goes with --provider embedded (on kind only the plugin host's faults apply)", o.NodeFault)
		}
		return nil
	}
	return exitcode.Usagef("--node-fault: unknown fault %q: use %s, %s, %s, %s, %s or %s", o.NodeFault,
		faultNoPredicates, faultReasonsDiffer, faultPluginsFailOpen, faultPluginsRejectLate, faultPluginsIgnoreRejections, faultNoPluginHost)
}

// KindPluginHost is the kind nodes' plugin host: the default, or broken as
// --node-fault says.
func (o *Config) KindPluginHost() kind.PluginHost {
	return kind.PluginHost{Off: o.NodeFault == faultNoPluginHost, Timeout: nodeset.DefaultSpec().PluginTimeout,
		FailOpen: o.NodeFault == faultPluginsFailOpen, RejectLate: o.NodeFault == faultPluginsRejectLate,
		IgnoreRejections: o.NodeFault == faultPluginsIgnoreRejections}
}

// NodeSpec is the shape of the embedded cluster's nodes (validated first).
func (o *Config) NodeSpec() nodeset.Spec {
	s := nodeset.DefaultSpec()
	switch o.NodeFault {
	case faultNoPredicates, faultReasonsDiffer:
		s.Broken = hollow.Broken(o.NodeFault)
	case faultPluginsFailOpen:
		s.PluginsFailOpen = true
	case faultPluginsRejectLate:
		s.PluginsRejectLate = true
	case faultPluginsIgnoreRejections:
		s.PluginsIgnoreRejections = true
	case faultNoPluginHost:
		s.PluginHost = false
	}
	return s
}

// NodeCount is how many nodes to start: none unless the selection can
// include a spec that uses nodes (the nodeadmit suite, and specs needing
// NodeAdmission), since each node costs a process and a ten-second warm-up.
func (o *Config) NodeCount() int {
	if o.Nodes == 0 || !o.mayRun(UsesNodes) {
		return 0
	}
	return o.Nodes
}

// NodeSlots is how many specs holding the nodes state (spec.NodesState) a
// parallel run may run at once, each on a node of its own: the embedded
// cluster's nodes, which are alike; one elsewhere, where specs pick a node
// by what it declares and another may not declare the same.
func (o *Config) NodeSlots() int {
	if o.Provider != embedded.Name {
		return 1
	}
	return max(1, o.NodeCount())
}

// UsesNodes reports whether a spec places pods on nodes.
func UsesNodes(s spec.Spec) bool {
	return s.Suite == "nodeadmit" || slices.Contains(s.Features, features.NodeAdmission)
}
