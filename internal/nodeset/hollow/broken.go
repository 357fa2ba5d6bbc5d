package hollow

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/allocation"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
)

// brokenOption breaks the kubelet's admission as b says. The kubelet builds
// its admit chain inside NewMainKubelet and hands it to its allocation
// manager; the only way in is a kubelet.Option (run just before the chain is
// handed over) that wraps that manager. The field is unexported, so this
// reaches it by reflection: acceptable only because a broken kubelet exists
// for the harness's own tests, never for a conformance run.
func brokenOption(b Broken) (kubelet.Option, error) {
	if b == NotBroken {
		return nil, nil
	}
	field, ok := reflect.TypeOf(kubelet.Kubelet{}).FieldByName("allocationManager")
	if !ok || field.Type != reflect.TypeOf((*allocation.Manager)(nil)).Elem() {
		return nil, fmt.Errorf("broken kubelet %q: this kubelet has no allocationManager field of type allocation.Manager", b)
	}
	return func(k *kubelet.Kubelet) {
		p := (*allocation.Manager)(unsafe.Add(unsafe.Pointer(k), field.Offset))
		*p = breakAllocation(*p, b)
	}, nil
}

// breakAllocation wraps m so that it is broken as b says.
func breakAllocation(m allocation.Manager, b Broken) allocation.Manager {
	broken := &brokenAllocation{Manager: m, broken: b}
	return kubecompat.AllocationManager{Manager: broken, AddPodFunc: broken.addPod}
}

// brokenAllocation drops the predicate handler (NoPredicates) or rewrites
// every rejection's Reason (ReasonsDiffer). Its AddPod is addPod, through
// kubecompat.AllocationManager.
type brokenAllocation struct {
	allocation.Manager
	broken Broken
}

func (m *brokenAllocation) AddPodAdmitHandlers(handlers lifecycle.PodAdmitHandlers) {
	if m.broken != NoPredicates {
		m.Manager.AddPodAdmitHandlers(handlers)
		return
	}
	var kept lifecycle.PodAdmitHandlers
	for _, h := range handlers {
		if fmt.Sprintf("%T", h) == "*lifecycle.predicateAdmitHandler" {
			klog.InfoS("Broken kubelet: predicate admit handler removed")
			continue
		}
		kept = append(kept, h)
	}
	m.Manager.AddPodAdmitHandlers(kept)
}

func (m *brokenAllocation) addPod(ctx context.Context, active []*v1.Pod, pod *v1.Pod) (bool, string, string) {
	ok, reason, message := kubecompat.AddPod(ctx, m.Manager, active, pod)
	if !ok && m.broken == ReasonsDiffer {
		reason = strings.ToLower(reason)
	}
	return ok, reason, message
}
