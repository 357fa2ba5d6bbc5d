package nodeadmit

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// nodeCapacityCause is the cause type PodResizeValidator gives a resize
// beyond the node's allocatable (plugin/pkg/admission/podresize).
const nodeCapacityCause metav1.CauseType = "NodeCapacity"

var resizeBeyondAllocatable = spec.Spec{
	ShortName: "ResizeBeyondNodeAllocatableRefused",
	Suite:     "nodeadmit",
	Description: "A pods/resize asking for more CPU, or more memory, than the pod's node can allocate is refused with 403 " +
		"and a cause of type NodeCapacity naming every resource over (PodResizeValidator), while a resize within it is admitted; " +
		"the resize of a pod bound to a node that does not exist is refused with 403 naming the node, unless it changes nothing.",
	Features:  declaredFeaturesFeatures,
	Profile:   spec.Extended,
	Seed:      seedResize,
	Isolation: bindsPodsToANode,
}

var _ = describe(resizeBeyondAllocatable, func(f *harness.Framework) {
	resizeOnMissingNode(f)

	ginkgo.It("admits a resize within the node's allocatable CPU and refuses one beyond it with cause NodeCapacity", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		pod := nodedecision.Pod(f, node, "subject")
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
		pod = runningPod(ctx, f, pod)

		// Within: the node's capacity is no obstacle to resizing as such.
		_, err := resize(ctx, f, pod, containerResources(pod, cpuRequest("20m")))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a resize to 20m CPU on node %s", node)
		expectContainerCPU(ctx, f, pod, "20m")
		expectResizeAllocated(ctx, f, pod, "20m")

		// Beyond: one CPU more than the node can allocate.
		n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		allocatable := n.Status.Allocatable.Cpu().MilliValue()
		tooMuch := fmt.Sprintf("%dm", allocatable+1000)
		_, err = resize(ctx, f, pod, containerResources(pod, cpuRequest(tooMuch)))
		gomega.Expect(err).To(gomega.HaveOccurred(), "node %s can allocate %dm CPU, yet a resize to %s was admitted", node, allocatable, tooMuch)
		status := expectForbidden(err)
		gomega.Expect(status.ErrStatus.Details).NotTo(gomega.BeNil(), "status details (%v)", err)
		var causes []metav1.CauseType
		for _, c := range status.ErrStatus.Details.Causes {
			causes = append(causes, c.Type)
		}
		gomega.Expect(causes).To(gomega.ContainElement(nodeCapacityCause), "cause types (%v)", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring(fmt.Sprintf(
			"node didn't have enough allocatable resources: cpu, requested: %d, allocatable: %d", allocatable+1000, allocatable)))
		expectContainerCPU(ctx, f, pod, "20m")
	})

	ginkgo.It("refuses a resize beyond the node's allocatable memory, and one beyond both, naming each resource", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		pod := nodedecision.Pod(f, node, "subject")
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")}
		pod = runningPod(ctx, f, pod)
		n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cpu, mem := n.Status.Allocatable.Cpu().MilliValue(), n.Status.Allocatable.Memory().Value()
		tooMuchMem := mem + 1<<30
		for _, tc := range []struct {
			name      string
			resources map[string]any
			message   string
		}{
			{"memory", map[string]any{"requests": map[string]any{"cpu": "10m", "memory": fmt.Sprint(tooMuchMem)}},
				fmt.Sprintf("node didn't have enough allocatable resources: memory, requested: %d, allocatable: %d", tooMuchMem, mem)},
			{"cpu and memory", map[string]any{"requests": map[string]any{"cpu": fmt.Sprintf("%dm", cpu+1000), "memory": fmt.Sprint(tooMuchMem)}},
				fmt.Sprintf("node didn't have enough allocatable resources: cpu, requested: %d, allocatable: %d; memory, requested: %d, allocatable: %d",
					cpu+1000, cpu, tooMuchMem, mem)},
		} {
			_, err = resize(ctx, f, pod, containerResources(pod, tc.resources))
			gomega.Expect(err).To(gomega.HaveOccurred(), "node %s can allocate %d bytes of memory, yet a resize beyond (%s) was admitted", node, mem, tc.name)
			status := expectForbidden(err)
			gomega.Expect(status.ErrStatus.Details).NotTo(gomega.BeNil(), "status details (%v)", err)
			var causes []metav1.CauseType
			for _, c := range status.ErrStatus.Details.Causes {
				causes = append(causes, c.Type)
			}
			gomega.Expect(causes).To(gomega.ContainElement(nodeCapacityCause), "cause types (%v)", err)
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(tc.message), "the refusal names every resource over (%s)", tc.name)
		}
		cur, err := nodedecision.Current(ctx, f, pod)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		got := cur.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]
		gomega.Expect(got.Cmp(resource.MustParse("16Mi"))).To(gomega.BeZero(), "a refused resize changes nothing: memory request is %s", got.String())
	})
})

// containerResources is the resize of pod's one container to resources.
func containerResources(pod *corev1.Pod, resources map[string]any) map[string]any {
	return map[string]any{"containers": []any{map[string]any{"name": pod.Spec.Containers[0].Name, "resources": resources}}}
}

// expectContainerCPU checks the CPU request stored for pod's container.
func expectContainerCPU(ctx context.Context, f *harness.Framework, pod *corev1.Pod, cpu string) {
	cur, err := nodedecision.Current(ctx, f, pod)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	got := cur.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
	gomega.Expect(got.Cmp(resource.MustParse(cpu))).To(gomega.BeZero(), "container cpu request is %s, want %s", got.String(), cpu)
}

// expectResizeAllocated waits (up to the ObjectState bound) until the
// kubelet reports the container's CPU request allocated at cpu, with no
// PodResizePending condition: the node admitted the resize.
func expectResizeAllocated(ctx context.Context, f *harness.Framework, pod *corev1.Pod, cpu string) {
	gomega.Eventually(ctx, func(ctx context.Context) error {
		cur, err := nodedecision.Current(ctx, f, pod)
		if err != nil {
			return err
		}
		for _, c := range cur.Status.Conditions {
			if c.Type == corev1.PodResizePending && c.Status == corev1.ConditionTrue {
				return gomega.StopTrying(fmt.Sprintf("node %s left the resize pending: %s: %s", pod.Spec.NodeName, c.Reason, c.Message))
			}
		}
		if len(cur.Status.ContainerStatuses) == 0 {
			return fmt.Errorf("no container status yet")
		}
		got := cur.Status.ContainerStatuses[0].AllocatedResources[corev1.ResourceCPU]
		if got.Cmp(resource.MustParse(cpu)) != 0 {
			return fmt.Errorf("allocated cpu is %s, want %s", got.String(), cpu)
		}
		return nil
	}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
}
