package hollow

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/allocation"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
)

type fakeAllocation struct {
	allocation.Manager
	handlers lifecycle.PodAdmitHandlers
	reject   bool
}

func (f *fakeAllocation) AddPodAdmitHandlers(h lifecycle.PodAdmitHandlers) { f.handlers = h }

func (f *fakeAllocation) addPod(context.Context, []*v1.Pod, *v1.Pod) (bool, string, string) {
	if f.reject {
		return false, "OutOfcpu", "m"
	}
	return true, "", ""
}

func (f *fakeAllocation) manager() allocation.Manager {
	return kubecompat.AllocationManager{Manager: f, AddPodFunc: f.addPod}
}

// The broken kubelets must really be broken with this kubelet version: the
// option finds its field, NoPredicates drops exactly the predicate handler,
// ReasonsDiffer changes every Reason.
func TestBrokenKubeletsAreBroken(t *testing.T) {
	for _, b := range []Broken{NoPredicates, ReasonsDiffer} {
		if opt, err := brokenOption(b); err != nil || opt == nil {
			t.Fatalf("%s: option %v, error %v", b, opt, err)
		}
	}
	if opt, err := brokenOption(NotBroken); opt != nil || err != nil {
		t.Errorf("a correct kubelet got option %v, error %v", opt, err)
	}

	other := (&recordingHandler{}).handler()
	predicates := lifecycle.NewPredicateAdmitHandler(nil, nil, nil)
	inner := &fakeAllocation{}
	breakAllocation(inner.manager(), NoPredicates).AddPodAdmitHandlers(lifecycle.PodAdmitHandlers{other, predicates})
	if len(inner.handlers) != 1 || fmt.Sprintf("%T", inner.handlers[0]) != fmt.Sprintf("%T", other) {
		t.Errorf("no-predicates kept %v", inner.handlers)
	}
	inner = &fakeAllocation{}
	breakAllocation(inner.manager(), ReasonsDiffer).AddPodAdmitHandlers(lifecycle.PodAdmitHandlers{other, predicates})
	if len(inner.handlers) != 2 {
		t.Errorf("reasons-differ dropped handlers: %v", inner.handlers)
	}

	ctx := context.Background()
	inner = &fakeAllocation{reject: true}
	if ok, reason, _ := kubecompat.AddPod(ctx, breakAllocation(inner.manager(), ReasonsDiffer), nil, &v1.Pod{}); ok || reason != "outofcpu" {
		t.Errorf("reasons-differ: ok %t reason %q", ok, reason)
	}
	if ok, reason, _ := kubecompat.AddPod(ctx, breakAllocation(inner.manager(), NoPredicates), nil, &v1.Pod{}); ok || reason != "OutOfcpu" {
		t.Errorf("no-predicates changed the reason: ok %t reason %q", ok, reason)
	}
}
