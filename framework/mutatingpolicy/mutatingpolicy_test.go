package mutatingpolicy

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func discoveryWith(resources ...string) *fakediscovery.FakeDiscovery {
	list := &metav1.APIResourceList{GroupVersion: GroupVersion.String()}
	for _, r := range resources {
		list.APIResources = append(list.APIResources, metav1.APIResource{Name: r})
	}
	return &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{list}}}
}

// The feature is there when, and only when, both resources are served.
func TestServed(t *testing.T) {
	for _, c := range []struct {
		resources []string
		want      bool
	}{
		{[]string{"mutatingwebhookconfigurations", "validatingadmissionpolicies"}, false}, // 1.35
		{[]string{"mutatingadmissionpolicies"}, false},
		{[]string{"mutatingwebhookconfigurations", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"}, true},
	} {
		got, err := Served(discoveryWith(c.resources...))
		if err != nil || got != c.want {
			t.Errorf("%v: served %t, %v; want %t", c.resources, got, err, c.want)
		}
	}
	other := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{}}
	if got, err := Served(other); err != nil || got {
		t.Errorf("no admissionregistration.k8s.io/v1 at all: served %t, %v", got, err)
	}
}

// A policy goes out with its apiVersion, kind and k8s.io/api's field names,
// with Strict field validation, and comes back the same.
func TestClientRoundTrip(t *testing.T) {
	ctx := context.Background()
	scheme := runtime.NewScheme()
	d := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		Policies: "MutatingAdmissionPolicyList", Bindings: "MutatingAdmissionPolicyBindingList"})
	var seen *unstructured.Unstructured
	var validation string
	d.PrependReactor("create", "mutatingadmissionpolicies", func(a clienttesting.Action) (bool, runtime.Object, error) {
		seen = a.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured)
		validation = a.(clienttesting.CreateActionImpl).CreateOptions.FieldValidation
		return false, nil, nil
	})
	p := &MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: MutatingAdmissionPolicySpec{
		FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
		ReinvocationPolicy: admissionregistrationv1.IfNeededReinvocationPolicy,
		Mutations: []Mutation{{PatchType: PatchTypeJSONPatch, JSONPatch: &JSONPatch{Expression: "[]"}},
			{PatchType: PatchTypeApplyConfiguration, ApplyConfiguration: &ApplyConfiguration{Expression: "Object{}"}}},
	}}
	if _, err := PolicyClient(d).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if seen.GetAPIVersion() != "admissionregistration.k8s.io/v1" || seen.GetKind() != "MutatingAdmissionPolicy" {
		t.Errorf("sent %s %s", seen.GetAPIVersion(), seen.GetKind())
	}
	if validation != metav1.FieldValidationStrict {
		t.Errorf("field validation %q", validation)
	}
	mutations, _, _ := unstructured.NestedSlice(seen.Object, "spec", "mutations")
	if len(mutations) != 2 || mutations[0].(map[string]any)["jsonPatch"] == nil || mutations[1].(map[string]any)["applyConfiguration"] == nil {
		t.Errorf("mutations sent as %v", mutations)
	}
	if v, _, _ := unstructured.NestedString(seen.Object, "spec", "reinvocationPolicy"); v != "IfNeeded" {
		t.Errorf("reinvocationPolicy sent as %q", v)
	}
	got, err := PolicyClient(d).Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "p" || len(got.Spec.Mutations) != 2 || got.Spec.Mutations[1].ApplyConfiguration.Expression != "Object{}" ||
		*got.Spec.FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("read back %+v", got)
	}
	if err := PolicyClient(d).Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
		t.Error(err)
	}
}
