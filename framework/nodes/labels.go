package nodes

// ExtendedResource is what every node advertises by default, so specs can
// exhaust an extended resource.
const ExtendedResource = "admission-conformance.io/widget"

// AppArmorLabel says whether the node can enforce AppArmor profiles
// ("enforceable") or not ("unavailable"), as the kubelet's own validator
// finds at start. Only a node that cannot enforce them rejects pods asking
// for a profile (Reason "AppArmor"), so specs read this label to know
// whether that rejection can be checked here.
const AppArmorLabel = "node.admission-conformance.io/apparmor"

// HollowLabel marks the nodes set aside for the harness, which run nothing
// but the harness's pods (and a real cluster's DaemonSet pods, which
// tolerate every taint): the embedded cluster's hollow nodes, and the one
// node of its own the kind provider adds to each cluster it creates. Specs
// that disturb a whole node (fill it, taint it NoExecute, relabel it) only
// pick these.
const HollowLabel = "node.admission-conformance.io/hollow"

// LackedFeatures are kubelet feature gates the default nodes have off, so
// that their kubelets leave the matching features out of
// node.status.declaredFeatures (NodeDeclaredFeatures): without a node that
// lacks a feature, nothing can show how the apiserver's
// NodeDeclaredFeatureValidator and the kubelet's declared-features check
// treat a resize or a pod needing it. Both are beta and on by default from
// 1.36, both known from 1.35; no other spec uses them.
var LackedFeatures = map[string]bool{
	// Resizing pod-level resources (pods/resize of spec.resources).
	"InPlacePodLevelResourcesVerticalScaling": false,
	// Containers' restartPolicyRules with the action RestartAllContainers.
	"RestartAllContainersOnContainerExits": false,
}
