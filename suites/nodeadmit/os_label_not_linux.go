package nodeadmit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// unsupportedPlatformCause is the cause type PodResizeValidator gives a
// resize on a node that is not Linux (plugin/pkg/admission/podresize).
const unsupportedPlatformCause metav1.CauseType = "UnsupportedPlatform"

var osLabelNotLinux = spec.Spec{
	ShortName: "NodeOSLabelNotLinux",
	Suite:     "nodeadmit",
	Description: "On a node whose kubernetes.io/os label says windows, a pods/resize is refused with 403 and a cause of type " +
		"UnsupportedPlatform (PodResizeValidator: resize is Linux-only), while the node's kubelet, which judges a pod's " +
		"kubernetes.io/os label against the operating system it runs on and not against the node's label, admits a pod labelled linux.",
	Features: declaredFeaturesFeatures,
	Profile:  spec.Extended,
	Seed:     seedResize,
	Isolation: spec.Isolation{Exclusive: []string{spec.NodesState},
		Reason: "relabels a node's kubernetes.io/os, which the scheduler, the apiserver's resize checks and other cases read"},
}

// relabelOS sets node's kubernetes.io/os label.
func relabelOS(ctx context.Context, f *harness.Framework, node, os string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{corev1.LabelOSStable: os}}})
	if err != nil {
		return err
	}
	_, err = f.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

var _ = describe(osLabelNotLinux, func(f *harness.Framework) {
	ginkgo.It("refuses a resize on the node with cause UnsupportedPlatform, and the kubelet still admits a pod labelled with its own OS", func(ctx ginkgo.SpecContext) {
		n := hollowNode(ctx, f, "relabelling it would keep pods that select its operating system off it")
		node, own := n.Name, n.Labels[corev1.LabelOSStable]
		gomega.Expect(own).To(gomega.Equal("linux"), "node %s must say it runs linux before the case relabels it", node)
		pod := nodedecision.Pod(f, node, "subject")
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
		pod = runningPod(ctx, f, pod)

		gomega.Expect(relabelOS(ctx, f, node, "windows")).To(gomega.Succeed())
		ginkgo.DeferCleanup(func(ctx context.Context) {
			gomega.Expect(relabelOS(ctx, f, node, own)).To(gomega.Succeed())
			// The next spec on this node must not meet the apiserver's
			// stale view of the label: wait until a resize is admitted
			// again (a dry run, changing nothing).
			gomega.Eventually(ctx, func(ctx context.Context) error {
				_, err := resizeDryRun(ctx, f, pod, containerResources(pod, cpuRequest("20m")))
				return err
			}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed(),
				"the apiserver must admit resizes again once node %s says %s", node, own)
		})
		// The apiserver reads nodes from its informer: until it has the
		// label a resize is admitted, so the probe is a dry run, repeated
		// until refused (a resize admitted for good would change the pod).
		var err error
		gomega.Eventually(ctx, func(ctx context.Context) error {
			_, err = resizeDryRun(ctx, f, pod, containerResources(pod, cpuRequest("20m")))
			if err == nil {
				return fmt.Errorf("a resize is still admitted on node %s labelled windows", node)
			}
			return nil
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed(),
			"the apiserver must refuse resizes once it sees the node labelled windows")
		// The real resize, now that the apiserver sees the label.
		_, err = resize(ctx, f, pod, containerResources(pod, cpuRequest("20m")))
		status := expectForbidden(err)
		gomega.Expect(status.ErrStatus.Message).To(gomega.Equal(fmt.Sprintf(
			`pods "subject" is forbidden: pod resize is only supported on linux nodes, node %q is "windows"`, node)))
		gomega.Expect(status.ErrStatus.Details).NotTo(gomega.BeNil(), "status details (%v)", err)
		var causes []metav1.CauseType
		for _, c := range status.ErrStatus.Details.Causes {
			causes = append(causes, c.Type)
		}
		gomega.Expect(causes).To(gomega.ContainElement(unsupportedPlatformCause), "cause types (%v)", err)
		expectContainerCPU(ctx, f, pod, "10m")

		// The kubelet fills a missing or foreign os label of its node with
		// the OS it runs (predicate.go rejectPodAdmissionBasedOnOSSelector),
		// so a pod labelled linux is admitted on the node labelled windows.
		linux := nodedecision.Pod(f, node, "linux")
		linux.Labels[corev1.LabelOSStable] = own
		expectControlAdmitted(ctx, f, linux)
	})
})
