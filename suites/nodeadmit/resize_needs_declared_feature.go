package nodeadmit

import (
	"context"
	"fmt"
	"slices"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var resizeNeedsDeclaredFeature = spec.Spec{
	ShortName: "ResizeNeedsNodeDeclaredFeature",
	Suite:     "nodeadmit",
	Description: "A pods/resize of a pod's pod-level resources, on a node whose status.declaredFeatures lacks " +
		"InPlacePodLevelResourcesVerticalScaling, is refused with 403 naming the feature and the node " +
		"(NodeDeclaredFeatureValidator), and the same resize is admitted once the node declares the feature.",
	Features:  declaredFeaturesFeatures,
	Profile:   spec.Extended,
	Seed:      seedResize,
	Isolation: changesDeclaredFeatures,
}

var _ = describe(resizeNeedsDeclaredFeature, func(f *harness.Framework) {
	ginkgo.It("refuses a pod-level resize the node does not declare support for, naming the feature, and admits it once declared", func(ctx ginkgo.SpecContext) {
		node, declared := nodeLacking(ctx, f, podLevelResizeFeature, false)
		pod := nodedecision.Pod(f, node, "subject")
		pod.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}
		// A container request too, so the pod stays Burstable and its
		// container status carries resources (which a resize needs).
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
		pod = runningPod(ctx, f, pod)
		bigger := map[string]any{"resources": cpuRequest("200m")}

		_, err := resize(ctx, f, pod, bigger)
		if apierrors.IsInvalid(err) {
			// The apiserver's own gate is off: it refuses every pod-level
			// resize in validation, before admission.
			ginkgo.Skip(notSupported("the apiserver refuses pod-level resizes in validation: " + err.Error()))
		}
		gomega.Expect(err).To(gomega.HaveOccurred(), "node %s does not declare %s (it declares %v), yet the resize was admitted",
			node, podLevelResizeFeature, declared)
		expectForbidden(err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring(fmt.Sprintf(
			"pod update requires features %s which are not available on node %q", podLevelResizeFeature, node)))
		expectPodCPU(ctx, f, pod, "100m")

		// The node declares the feature now. Its kubelet, whose gate is off,
		// puts its own list back at its next status update (every 10 s on
		// hollow nodes): declare it again until a resize gets through, and
		// restore the kubelet's list after the case.
		ginkgo.DeferCleanup(setDeclaredFeatures, f, node, declared)
		withFeature := append(slices.Clone(declared), podLevelResizeFeature)
		gomega.Eventually(ctx, func(ctx context.Context) error {
			if !slices.Contains(declaredFeatures(ctx, f, node), podLevelResizeFeature) {
				if err := setDeclaredFeatures(ctx, f, node, withFeature); err != nil {
					return err
				}
			}
			_, err := resize(ctx, f, pod, bigger)
			return err
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed(),
			"the resize was still refused after node %s declared %s", node, podLevelResizeFeature)
		expectPodCPU(ctx, f, pod, "200m")
	})
})

// expectPodCPU checks the pod-level CPU request stored for pod.
func expectPodCPU(ctx context.Context, f *harness.Framework, pod *corev1.Pod, cpu string) {
	cur, err := nodedecision.Current(ctx, f, pod)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(cur.Spec.Resources).NotTo(gomega.BeNil())
	got := cur.Spec.Resources.Requests[corev1.ResourceCPU]
	gomega.Expect(got.Cmp(resource.MustParse(cpu))).To(gomega.BeZero(), "pod-level cpu request is %s, want %s", got.String(), cpu)
}
