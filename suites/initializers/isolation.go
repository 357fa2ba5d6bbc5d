package initializers

import "github.com/admission-conformance/admission-conformance/framework/spec"

// What the suite's specs may run beside in a parallel run (spec.Isolation).
var (
	// usesInitializers: the reference initializers act on every namespace
	// of the suite; each case's configurations apply to its own namespace
	// only (newConfiguration), but a case that cuts the poller off blocks
	// every pod creation in the suite.
	usesInitializers = spec.Isolation{Shares: []string{spec.InitializersState},
		Reason: "its pods are created where the run's reference initializers act, which a case cutting off their poller blocks"}
	// usesInitializersAndNodes: as above, and the scheduler binds the
	// case's pods to one of the harness's nodes.
	usesInitializersAndNodes = spec.Isolation{Shares: []string{spec.InitializersState, spec.NodesState},
		Reason: "its pods are created where the run's reference initializers act, and the scheduler binds them to one of the harness's nodes"}
	// cutsOffThePoller: without a configuration read for 5 s the webhook
	// refuses every creation in every namespace of the suite.
	cutsOffThePoller = spec.Isolation{Exclusive: []string{spec.InitializersState},
		Reason: "cuts the reference initializers' poller off: every pod creation in the suite's namespaces is refused meanwhile"}
)
