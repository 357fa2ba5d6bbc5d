package nodedecision_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
)

// A boundary spec predicts what the kubelet counts for a pod before it
// creates it (nodedecision.Pod, then Decide): here 200m of app, a 100m
// sidecar started before a 300m init container, and 100m of overhead. While
// the init container runs the pod holds init plus sidecar, more than app
// plus sidecar, so the kubelet counts 400m plus the overhead.
func ExamplePodRequests() {
	cpu := func(m int64) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: nodedecision.Quantity(corev1.ResourceCPU, m)}}
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{
			{Name: "sidecar", Image: nodedecision.Image, RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways), Resources: cpu(100)},
			{Name: "init", Image: nodedecision.Image, Resources: cpu(300)},
		},
		Containers: []corev1.Container{{Name: "app", Image: nodedecision.Image, Resources: cpu(200)}},
		Overhead:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
	}}
	requests := nodedecision.PodRequests(pod)
	fmt.Println(nodedecision.Amount(corev1.ResourceCPU, requests[corev1.ResourceCPU]), "millicores")
	// Output: 500 millicores
}

// A boundary spec reads what a node's pods hold (PlacedOn, which waits
// until the kubelet's count and the API's agree) and asks for exactly what
// is left, then one unit more. Here the node and its one pod are written
// out as PlacedOn would read them.
func ExamplePlaced_Remaining() {
	node := &corev1.Node{Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("2"),
		corev1.ResourceMemory: resource.MustParse("4Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}}}
	running := corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: nodedecision.Image,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("500m"),
			corev1.ResourceMemory: resource.MustParse("1Gi"),
		}}}}}}
	placed := &nodedecision.Placed{Node: node, Pods: []corev1.Pod{running}, Requested: nodedecision.PodRequests(&running)}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		left := nodedecision.Quantity(name, placed.Remaining(name))
		fmt.Printf("%s: allocatable %d, used %d, left %s\n", name, placed.Allocatable(name), placed.Used(name), left.String())
	}
	// Output:
	// cpu: allocatable 2000, used 500, left 1500m
	// memory: allocatable 4294967296, used 1073741824, left 3Gi
	// pods: allocatable 110, used 1, left 109
}
