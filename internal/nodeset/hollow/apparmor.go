package hollow

import (
	"k8s.io/kubernetes/pkg/security/apparmor"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// AppArmorLabel and HollowLabel are the labels every node sets, which
// specs read (framework/nodes).
const (
	AppArmorLabel = nodes.AppArmorLabel
	HollowLabel   = nodes.HollowLabel
)

func appArmorLabelValue() string {
	if apparmor.NewValidator().ValidateHost() != nil {
		return "unavailable"
	}
	return "enforceable"
}
