package fakeinitializer_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakeinitializer"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// An initializers spec starts one fake per initializer it configured
// (fakeinitializer.Start(ctx, f.Config, f.Namespace, name, behaviour)),
// creates a pod, which the reference implementation gates with each
// initializer in order, and checks from the fakes' records that each took
// its gate off only once the one before it had. Here an in-process stand-in
// for the apiserver holds the pod as the reference implementation leaves
// it.
func ExampleStart() {
	const ns = "acme-1"
	first, second := ns+".admission-conformance.io/a1", ns+".admission-conformance.io/a2"
	assigned, _ := v1alpha1.EncodeAssigned([]v1alpha1.Assigned{
		{Name: first, FailurePolicy: v1alpha1.Fail, TimeoutSeconds: 30},
		{Name: second, FailurePolicy: v1alpha1.Fail, TimeoutSeconds: 30},
	})
	api := newAPIServer(ns, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "subject", UID: "subject-uid",
			Labels:      map[string]string{v1alpha1.InitializingLabel: "true"},
			Annotations: map[string]string{v1alpha1.AssignedAnnotation: assigned}},
		Spec: corev1.PodSpec{
			SchedulingGates: []corev1.PodSchedulingGate{{Name: first}, {Name: second}},
			Containers:      []corev1.Container{{Name: "c", Image: "registry.invalid/never-pulled"}},
		},
	})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fakes := map[string]*fakeinitializer.Controller{}
	for _, name := range []string{second, first} {
		fake, err := fakeinitializer.Start(ctx, api.Config(), ns, name, fakeinitializer.Behaviour{})
		if err != nil {
			panic(err)
		}
		defer fake.Stop()
		fakes[name] = fake
	}
	var removals []fakeinitializer.Removal
	for _, name := range []string{first, second} {
		r, err := fakes[name].WaitRemoval(ctx, "subject")
		if err != nil {
			panic(err)
		}
		fmt.Println(fakes[name].Name(), "removed its gate:", r.Err)
		removals = append(removals, r)
	}
	fmt.Println("a2 saw itself at the head after a1's removal was sent:", !removals[1].Seen.Before(removals[0].Sent))
	for _, o := range fakes[second].Observations("subject")[:2] {
		fmt.Println("a2 saw gates", o.Gates, "at head:", o.AtHead)
	}
	for _, p := range api.Patches() {
		fmt.Println(p)
	}
	// Output:
	// acme-1.admission-conformance.io/a1 removed its gate: <nil>
	// acme-1.admission-conformance.io/a2 removed its gate: <nil>
	// a2 saw itself at the head after a1's removal was sent: true
	// a2 saw gates [acme-1.admission-conformance.io/a1 acme-1.admission-conformance.io/a2] at head: false
	// a2 saw gates [acme-1.admission-conformance.io/a2] at head: true
	// [{"op":"test","path":"/spec/schedulingGates/0/name","value":"acme-1.admission-conformance.io/a1"},{"op":"remove","path":"/spec/schedulingGates/0"}]
	// [{"op":"test","path":"/spec/schedulingGates/0/name","value":"acme-1.admission-conformance.io/a2"},{"op":"remove","path":"/spec/schedulingGates/0"}]
}
