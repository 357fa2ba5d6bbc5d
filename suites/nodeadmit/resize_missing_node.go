package nodeadmit

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
)

// missingNode is a node name no cluster the harness builds has.
const missingNode = "admission-conformance-missing-node"

// resizeOnMissingNode adds to ResizeBeyondNodeAllocatableRefused the case of
// a pod bound (by spec.nodeName) to a node that does not exist: no node, no
// allocatable to fit the resize in.
func resizeOnMissingNode(f *harness.Framework) {
	ginkgo.It("refuses the resize of a pod bound to a node that does not exist, naming the node, and admits one that changes nothing", func(ctx ginkgo.SpecContext) {
		pod := nodedecision.Pod(f, missingNode, "orphan")
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
		created, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// No kubelet will ever confirm the deletion: delete it at once.
		ginkgo.DeferCleanup(func(ctx context.Context) error {
			return f.Client.CoreV1().Pods(f.Namespace).Delete(ctx, created.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		})

		_, err = resize(ctx, f, created, containerResources(created, cpuRequest("20m")))
		gomega.Expect(err).To(gomega.HaveOccurred(), "node %s does not exist, yet a resize of a pod bound to it was admitted", missingNode)
		status := expectForbidden(err)
		gomega.Expect(status.ErrStatus.Message).To(gomega.Equal(`pods "orphan" is forbidden: node "` + missingNode + `" not found`))
		expectContainerCPU(ctx, f, created, "10m")

		// A resize that changes nothing leaves the pod's generation as it
		// is: there is nothing to judge, so the missing node does not matter.
		_, err = resize(ctx, f, created, containerResources(created, cpuRequest("10m")))
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a resize to the resources the pod has must be admitted")
		expectContainerCPU(ctx, f, created, "10m")
	})

	ginkgo.It("refuses a pod-level resize of a pod bound to a node that does not exist, naming the node", func(ctx ginkgo.SpecContext) {
		// A pod-level resize needs a declared feature, so it is the node
		// lookup of NodeDeclaredFeatureValidator that meets the missing node.
		pod := nodedecision.Pod(f, missingNode, "orphan-pod-level")
		pod.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
		created, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(func(ctx context.Context) error {
			return f.Client.CoreV1().Pods(f.Namespace).Delete(ctx, created.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		})
		_, err = resize(ctx, f, created, map[string]any{"resources": cpuRequest("200m")})
		if apierrors.IsInvalid(err) {
			// The apiserver's own gate is off: it refuses every pod-level
			// resize in validation, before admission.
			ginkgo.Skip(notSupported("the apiserver refuses pod-level resizes in validation: " + err.Error()))
		}
		gomega.Expect(err).To(gomega.HaveOccurred(), "node %s does not exist, yet a pod-level resize of a pod bound to it was admitted", missingNode)
		status := expectForbidden(err)
		gomega.Expect(status.ErrStatus.Message).To(gomega.Equal(`pods "orphan-pod-level" is forbidden: node "` + missingNode + `" not found`))
		expectPodCPU(ctx, f, created, "100m")
	})
}
