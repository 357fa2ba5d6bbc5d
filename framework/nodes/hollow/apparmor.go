package hollow

import "k8s.io/kubernetes/pkg/security/apparmor"

// AppArmorLabel says whether the node can enforce AppArmor profiles
// ("enforceable") or not ("unavailable"), as the kubelet's own validator
// finds at start. Only a node that cannot enforce them rejects pods asking
// for a profile (Reason "AppArmor"), so specs read this label to know
// whether that rejection can be checked here.
const AppArmorLabel = "node.admission-conformance.io/apparmor"

func appArmorLabelValue() string {
	if apparmor.NewValidator().ValidateHost() != nil {
		return "unavailable"
	}
	return "enforceable"
}
