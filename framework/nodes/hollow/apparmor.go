package hollow

import "k8s.io/kubernetes/pkg/security/apparmor"

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

func appArmorLabelValue() string {
	if apparmor.NewValidator().ValidateHost() != nil {
		return "unavailable"
	}
	return "enforceable"
}
