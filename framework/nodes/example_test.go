package nodes_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// Every node the harness starts advertises ExtendedResource, so a node spec
// can ask for more of it than a node has.
func Example() {
	pod := corev1.Container{Name: "c", Image: "i", Resources: corev1.ResourceRequirements{
		Limits: corev1.ResourceList{nodes.ExtendedResource: resource.MustParse("3")}}}
	q := pod.Resources.Limits[nodes.ExtendedResource]
	fmt.Println(nodes.ExtendedResource, q.String())
	// Output: admission-conformance.io/widget 3
}
