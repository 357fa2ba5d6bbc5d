package mutatingpolicy_test

import (
	"context"
	"fmt"
	"maps"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
)

// A spec creates a MutatingAdmissionPolicy through f.Dynamic with the
// typed client of whatever minor the harness was built with (here a fake
// dynamic client stands in for the cluster, and shows what is sent): the
// object goes out as admissionregistration.k8s.io/v1 with k8s.io/api's field
// names, and Strict field validation makes the apiserver refuse a field
// these types got wrong instead of dropping it.
func ExamplePolicyClient() {
	d := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		mutatingpolicy.Policies: "MutatingAdmissionPolicyList", mutatingpolicy.Bindings: "MutatingAdmissionPolicyBindingList"})
	d.PrependReactor("create", "mutatingadmissionpolicies", func(a clienttesting.Action) (bool, runtime.Object, error) {
		sent := a.(clienttesting.CreateActionImpl)
		u := sent.GetObject().(*unstructured.Unstructured)
		mutations, _, _ := unstructured.NestedSlice(u.Object, "spec", "mutations")
		reinvocation, _, _ := unstructured.NestedString(u.Object, "spec", "reinvocationPolicy")
		fmt.Println("sent:", u.GetAPIVersion(), u.GetKind(), "fieldValidation="+sent.CreateOptions.FieldValidation)
		fmt.Println("spec.reinvocationPolicy:", reinvocation, "spec.mutations[0]:", slices.Sorted(maps.Keys(mutations[0].(map[string]any))))
		return false, nil, nil // and store it
	})

	policies := mutatingpolicy.PolicyClient(d)
	_, err := policies.Create(context.Background(), &mutatingpolicy.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "acme-checked"},
		Spec: mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy:      ptr.To(admissionregistrationv1.Fail),
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []mutatingpolicy.Mutation{{
				PatchType: mutatingpolicy.PatchTypeApplyConfiguration,
				ApplyConfiguration: &mutatingpolicy.ApplyConfiguration{
					Expression: `Object{metadata: Object.metadata{labels: {"acme.example/checked": "true"}}}`},
			}},
		},
	}, metav1.CreateOptions{})
	fmt.Println(err)
	got, err := policies.Get(context.Background(), "acme-checked", metav1.GetOptions{})
	fmt.Println(got.Spec.Mutations[0].ApplyConfiguration.Expression, err)
	// Output:
	// sent: admissionregistration.k8s.io/v1 MutatingAdmissionPolicy fieldValidation=Strict
	// spec.reinvocationPolicy: Never spec.mutations[0]: [applyConfiguration patchType]
	// <nil>
	// Object{metadata: Object.metadata{labels: {"acme.example/checked": "true"}}} <nil>
}

// The harness asks discovery whether the cluster serves the policies and
// their bindings (cluster.ServedFeatures): a 1.35 cluster does not, so the
// MutatingAdmissionPolicy specs are reported not supported there.
func ExampleServed() {
	for _, c := range []struct {
		release   string
		resources []string
	}{
		{"1.35", []string{"mutatingwebhookconfigurations", "validatingadmissionpolicies", "validatingadmissionpolicybindings"}},
		{"1.36", []string{"mutatingadmissionpolicies", "mutatingadmissionpolicybindings", "mutatingwebhookconfigurations"}},
	} {
		list := &metav1.APIResourceList{GroupVersion: mutatingpolicy.GroupVersion.String()}
		for _, r := range c.resources {
			list.APIResources = append(list.APIResources, metav1.APIResource{Name: r})
		}
		d := &fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: []*metav1.APIResourceList{list}}}
		served, err := mutatingpolicy.Served(d)
		fmt.Println(c.release, served, err)
	}
	// Output:
	// 1.35 false <nil>
	// 1.36 true <nil>
}
