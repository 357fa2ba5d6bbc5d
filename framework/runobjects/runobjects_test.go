package runobjects

import (
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestEveryAdmissionKindIsSwept takes the kinds of admissionregistration.k8s.io/v1
// from the pinned client-go scheme: a kind the next release adds (which a
// spec may then create) fails here until it is added to Kinds, so the sweep
// and cleanup cannot miss it.
func TestEveryAdmissionKindIsSwept(t *testing.T) {
	objectMeta := reflect.TypeOf(metav1.ObjectMeta{})
	var pinned []string
	for gvk, typ := range scheme.Scheme.AllKnownTypes() {
		if gvk.Group != admissionGroup || gvk.Version != "v1" {
			continue
		}
		if f, ok := typ.FieldByName("ObjectMeta"); !ok || f.Type != objectMeta {
			continue // lists, options and watch events
		}
		plural, _ := meta.UnsafeGuessKindToResource(gvk)
		pinned = append(pinned, plural.Resource)
	}
	if len(pinned) < 4 {
		t.Fatalf("the pinned scheme has %d admissionregistration.k8s.io/v1 kinds (%v): the derivation broke", len(pinned), pinned)
	}
	listed := AdmissionResources()
	for _, r := range pinned {
		if !slices.Contains(listed, r) {
			t.Errorf("admissionregistration.k8s.io/v1 %s is served by the pinned Kubernetes but not in runobjects.Kinds: "+
				"add it (in delete order) if a run may create it", r)
		}
	}
	t.Logf("pinned kinds %v, listed %v", pinned, listed)
}

func TestNamespacesAreSweptLast(t *testing.T) {
	k := Kinds()
	if k[len(k)-1].Resource != Namespaces {
		t.Fatalf("last kind is %v, want namespaces: their objects go with them, after the cluster-level kinds", k[len(k)-1].Resource)
	}
	for _, kind := range k[:len(k)-1] {
		if kind.Resource == Namespaces {
			t.Fatalf("namespaces listed twice")
		}
	}
}

// TestReferenceInitializerKindsBeginWithTheirConfigurations: the sweep
// deletes the configurations first (nothing then asks the webhook about
// them), never namespaces (the reference namespace goes by name after).
func TestReferenceInitializerKindsBeginWithTheirConfigurations(t *testing.T) {
	k := ReferenceInitializerKinds()
	if len(k) == 0 || k[0].What != "initializer configurations" {
		t.Fatalf("reference kinds %v: want the initializer configurations first", k)
	}
	for _, kind := range k {
		if kind.Resource == Namespaces {
			t.Errorf("namespaces among the reference kinds")
		}
	}
}
