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

// HollowLabel marks the harness's own hollow nodes, which run nothing but
// the harness's pods: specs that disturb a whole node (a NoExecute taint
// evicts every pod that does not tolerate it) only pick these.
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
