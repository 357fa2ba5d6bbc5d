package nodeadmit

import "github.com/admission-conformance/admission-conformance/framework/spec"

// What the suite's specs may run beside in a parallel run (spec.Isolation).
var (
	// bindsPodsToANode: the kubelet's built-in checks judge each pod on its
	// own, so these cases may run together; but a node plugin another case
	// installs would be asked about their pods (and judge their subject
	// pods), and a full or tainted node would reject them.
	bindsPodsToANode = spec.Isolation{Shares: []string{spec.NodesState},
		Reason: "binds pods to one of the harness's nodes, which node plugins, a full node or a taint would judge differently"}
	// installsPlugins: a node's plugin host asks its plugins about every
	// pod bound to the node, one pod at a time (a hanging plugin holds up
	// every other pod), and its configuration is one file per node.
	installsPlugins = spec.Isolation{Exclusive: []string{spec.NodesState},
		Reason: "configures a node's plugin host, whose plugins judge every pod bound to the node, one at a time"}
	// taintsTheNode: a NoExecute taint makes the taint eviction controller
	// delete every pod on the node that does not tolerate it, whoever's.
	// It runs alone on the cluster, but beside other such cases on other
	// nodes: each binds its pods to its own node by name.
	taintsTheNode = spec.Isolation{Serial: true, Exclusive: []string{spec.NodesState},
		Reason: "taints a node NoExecute: every pod on it that does not tolerate the taint is evicted and none is scheduled there meanwhile"}
	// fillsTheNode: a full node rejects every pod bound to it (alone on
	// the cluster, as taintsTheNode).
	fillsTheNode = spec.Isolation{Serial: true, Exclusive: []string{spec.NodesState},
		Reason: "fills a node to its pod capacity: any other pod bound or scheduled to it meanwhile is rejected"}
)
