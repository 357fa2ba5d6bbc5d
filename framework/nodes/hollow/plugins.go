package hollow

import (
	"context"

	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// pluginAdmitHandler puts the KEP-2823 plugin host into the kubelet's admit
// chain. Resizes pass: the seed's plugins decide whether a pod may start on
// the node, and a resize is not a start.
type pluginAdmitHandler struct{ host *nodeadmission.Host }

func (h pluginAdmitHandler) Admit(attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
	if attrs.Operation == lifecycle.ResizeOperation {
		return lifecycle.PodAdmitResult{Admit: true}
	}
	r := h.host.Admit(context.Background(), attrs.Pod)
	return lifecycle.PodAdmitResult{Admit: r.Admit, Reason: r.Reason, Message: r.Message}
}

// admitChain asks each handler in turn; the first rejection wins, as in the
// kubelet's own chain.
type admitChain []lifecycle.PodAdmitHandler

func (c admitChain) Admit(attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
	for _, h := range c {
		if r := h.Admit(attrs); !r.Admit {
			return r
		}
	}
	return lifecycle.PodAdmitResult{Admit: true}
}

// pluginContainerManager is the seam: the kubelet has no exported way to add
// an admit handler, but it takes its container manager as a dependency and
// puts that manager's GetAllocateResourcesPodAdmitHandler into its chain,
// after the eviction and sysctl handlers and before the predicate handler.
// The plugin host goes first in that slot.
type pluginContainerManager struct {
	cm.ContainerManager
	plugins lifecycle.PodAdmitHandler
}

func (m *pluginContainerManager) GetAllocateResourcesPodAdmitHandler() lifecycle.PodAdmitHandler {
	return admitChain{m.plugins, m.ContainerManager.GetAllocateResourcesPodAdmitHandler()}
}
