package hollow

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

// PluginAdmitHandler puts a KEP-2823 plugin host (admit, a Host's Admit)
// into a kubelet's admit chain: the hollow kubelets' and the kind node
// image's (hack/kind/cmd/kubelet). Resizes pass: the seed's plugins decide
// whether a pod may start on the node, and a resize is not a start.
//
// The seam: the kubelet has no exported way to add an admit handler, but it
// takes its container manager as a dependency and puts that manager's
// GetAllocateResourcesPodAdmitHandler into its chain, after the eviction and
// sysctl handlers and before the predicate handler. The plugin host goes
// first in that slot (kubecompat.ContainerManager).
func PluginAdmitHandler(admit func(context.Context, *corev1.Pod) nodeadmission.AdmitResult) kubecompat.AdmitFunc {
	return func(ctx context.Context, attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
		if kubecompat.IsResize(attrs) {
			return lifecycle.PodAdmitResult{Admit: true}
		}
		r := admit(ctx, attrs.Pod)
		return lifecycle.PodAdmitResult{Admit: r.Admit, Reason: r.Reason, Message: r.Message}
	}
}
