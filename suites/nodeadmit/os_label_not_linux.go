package nodeadmit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

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

// daemonPods reads node's DaemonSet pods once: the DaemonSets (by UID)
// with a running pod there that is not being deleted, and the pods being
// deleted.
func daemonPods(ctx context.Context, f *harness.Framework, node string) (running []types.UID, deleting []string) {
	for _, p := range nodePods(ctx, f, node) {
		ref := metav1.GetControllerOf(&p)
		switch {
		case ref == nil || ref.Kind != "DaemonSet":
		case p.DeletionTimestamp != nil:
			deleting = append(deleting, p.Namespace+"/"+p.Name)
		case p.Status.Phase == corev1.PodRunning:
			running = append(running, ref.UID)
		}
	}
	return running, deleting
}

// unsettledDaemonPods says what keeps node's DaemonSet pods from being as
// they were (owners' running pods, none being deleted), or "": the kubelet
// counts a pod being deleted until it is gone, and so does a spec reading
// what the node's pods hold.
func unsettledDaemonPods(ctx context.Context, f *harness.Framework, node string, owners []types.UID) string {
	running, deleting := daemonPods(ctx, f, node)
	var problems []string
	for _, o := range owners {
		if !slices.Contains(running, o) {
			problems = append(problems, fmt.Sprintf("DaemonSet %s has no running pod", o))
		}
	}
	for _, p := range deleting {
		problems = append(problems, "pod "+p+" is being deleted")
	}
	return strings.Join(problems, "; ")
}

// nodePods are the pods bound to node, in every namespace.
func nodePods(ctx context.Context, f *harness.Framework, node string) []corev1.Pod {
	list, err := f.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return list.Items
}

var _ = describe(osLabelNotLinux, func(f *harness.Framework) {
	ginkgo.It("refuses a resize on the node with cause UnsupportedPlatform, and the kubelet still admits a pod labelled with its own OS", func(ctx ginkgo.SpecContext) {
		n := hollowNode(ctx, f, "relabelling it would keep pods that select its operating system off it")
		node, own := n.Name, n.Labels[corev1.LabelOSStable]
		gomega.Expect(own).To(gomega.Equal("linux"), "node %s must say it runs linux before the case relabels it", node)
		pod := nodedecision.Pod(f, node, "subject")
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}
		pod = runningPod(ctx, f, pod)

		daemons, _ := daemonPods(ctx, f, node)
		gomega.Expect(relabelOS(ctx, f, node, "windows")).To(gomega.Succeed())
		ginkgo.DeferCleanup(func(ctx context.Context) {
			gomega.Expect(relabelOS(ctx, f, node, own)).To(gomega.Succeed())
			// DaemonSets that select linux nodes (a real cluster's
			// kube-proxy; kind's) deleted their pods from the node
			// labelled windows: the next spec on the node counts what its
			// pods hold, so the node gets them back first.
			restored := time.Now()
			gomega.Eventually(ctx, func(ctx context.Context) string {
				return unsettledDaemonPods(ctx, f, node, daemons)
			}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.BeEmpty(),
				"node %s's DaemonSet pods must be as before it was relabelled", node)
			ginkgo.GinkgoWriter.Printf("node %s: the running pods of its %d DaemonSet(s) back %v after the label\n", node, len(daemons), time.Since(restored))
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
