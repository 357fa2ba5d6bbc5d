package main

import (
	"slices"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/nodes/hollow"
	"github.com/admission-conformance/admission-conformance/framework/runner"
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

// nodeCount is how many nodes to start: none unless the selection (suites,
// profiles, label filters, --rerun-failed) can include a nodeadmit spec, since
// only those use nodes and each node costs a process and a ten-second
// warm-up. Focus and skip only narrow a selection, so they are left out.
func (o *runOptions) nodeCount() int {
	if o.Nodes == 0 {
		return 0
	}
	filter := runner.AndFilters(o.LabelFilter, o.rerunFilter)
	matches := func([]string) bool { return true }
	if filter != "" {
		parsed, err := types.ParseLabelFilter(filter)
		if err != nil {
			return o.Nodes // the run reports the bad filter itself
		}
		matches = parsed
	}
	for _, s := range spec.All() {
		if s.Suite != "nodeadmit" ||
			(len(o.Suites) > 0 && !slices.Contains(o.Suites, s.Suite)) ||
			(len(o.Profiles) > 0 && !slices.Contains(o.Profiles, string(s.Profile))) {
			continue
		}
		if matches(s.Labels()) {
			return o.Nodes
		}
	}
	return 0
}
