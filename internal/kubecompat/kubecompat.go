// Package kubecompat is all the harness's code that depends on the minor of
// the k8s.io/kubernetes module it is built with: the hollow kubelet's use of
// kubelet internals and the embedded control plane's use of upstream test
// servers, whose signatures change between minors.
//
// Each supported minor has one template here, v1_MINOR.go.txt;
// hack/update-kubernetes.sh installs the one for the minor go.mod pins as
// kubecompat_generated.go (a test checks it is that template, unedited).
// Supporting a new minor means adding its template: copy the nearest one and
// follow the compiler. What kubecompat.go declares is the same for every
// minor. Specs do not use it: the harness's kubelets, its embedded control
// plane and the field inventory do.
package kubecompat

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/allocation"
	"k8s.io/kubernetes/pkg/kubelet/cm"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

// AdmitFunc is a kubelet admit handler written once for every minor: the
// template gives it the Admit method of the minor's lifecycle.PodAdmitHandler
// (with or without a context), and Admit calls any handler.
type AdmitFunc func(ctx context.Context, attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult

var _ lifecycle.PodAdmitHandler = AdmitFunc(nil)

// Chain asks each handler in turn; the first rejection wins, as in the
// kubelet's own chain.
func Chain(handlers ...lifecycle.PodAdmitHandler) AdmitFunc {
	return func(ctx context.Context, attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
		for _, h := range handlers {
			if r := Admit(ctx, h, attrs); !r.Admit {
				return r
			}
		}
		return lifecycle.PodAdmitResult{Admit: true}
	}
}

// ContainerManager is a container manager whose allocate-resources admit
// handler (the one the kubelet puts into its admit chain after the eviction
// and sysctl handlers and before the predicate handler) asks First before the
// inner manager's. The template gives it GetAllocateResourcesPodAdmitHandler.
type ContainerManager struct {
	cm.ContainerManager
	First lifecycle.PodAdmitHandler
}

var _ cm.ContainerManager = (*ContainerManager)(nil)

// AddPodFunc is allocation.Manager's AddPod written once for every minor.
type AddPodFunc func(ctx context.Context, active []*v1.Pod, pod *v1.Pod) (bool, string, string)

// AllocationManager is an allocation manager whose AddPod is AddPodFunc; the
// template gives it the AddPod method of the minor's allocation.Manager, and
// AddPod calls any manager's.
type AllocationManager struct {
	allocation.Manager
	AddPodFunc AddPodFunc
}

var _ allocation.Manager = AllocationManager{}
