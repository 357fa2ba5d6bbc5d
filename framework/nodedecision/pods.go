package nodedecision

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// Image is the image of every pod the specs create: a hollow node's fake
// runtime runs anything; on a real node Decide swaps in the pause image the
// node already holds, since clusters under test may reach no registry.
const Image = "registry.k8s.io/pause:3.10"

// Pod is a minimal pod called name in the case's namespace, bound to node by
// spec.nodeName so no scheduler takes part. It mounts no token, so that
// nothing but admission stands between the node and running it.
func Pod(f *harness.Framework, node, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace,
			Labels: map[string]string{harness.RunLabel: f.Env.RunID}},
		Spec: corev1.PodSpec{
			NodeName:                     node,
			AutomountServiceAccountToken: ptr.To(false),
			RestartPolicy:                corev1.RestartPolicyNever,
			Containers:                   []corev1.Container{{Name: "c", Image: Image}},
		},
	}
}

// DeletePods deletes every pod of the case's namespace at once (grace period
// 0) and waits (up to the Cleanup bound) until they are gone, so the next
// case finds the node's places free. A graceful deletion would hold each
// running pod's place until its kubelet's housekeeping had reclaimed it
// (about a second per case on hollow kubelets); a kubelet drops a pod that
// leaves the API from the pods it counts, and stops its containers after.
func DeletePods(ctx context.Context, f *harness.Framework) error {
	pods := f.Client.CoreV1().Pods(f.Namespace)
	if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{}); err != nil {
		return err
	}
	var left int
	err := wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.Cleanup.Duration, true,
		func(ctx context.Context) (bool, error) {
			list, err := pods.List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, nil
			}
			left = len(list.Items)
			return left == 0, nil
		})
	if err != nil {
		return fmt.Errorf("%d pod(s) of %s still there: %w", left, f.Namespace, err)
	}
	return nil
}

// Decide creates pod and waits (up to the ObjectState bound) for its node's
// decision. The case's namespace has its default ServiceAccount already
// (harness.Describe sees to it), without which the apiserver refuses pods.
func Decide(ctx context.Context, f *harness.Framework, pod *corev1.Pod) (nodes.Decision, error) {
	// A node that dies fails the wait at once, naming it.
	ctx, stop := f.Env.WatchNode(ctx, pod.Spec.NodeName)
	defer stop()
	if err := useLocalImage(ctx, f, pod); err != nil {
		if died := f.Env.DeadNode(pod.Spec.NodeName); died != nil {
			return nodes.Decision{}, died
		}
		return nodes.Decision{}, err
	}
	d, err := nodes.CreateAndDecide(ctx, f.Client, pod, f.Bounds.ObjectState.Duration)
	if err != nil {
		if died := f.Env.DeadNode(pod.Spec.NodeName); died != nil {
			return d, died
		}
	}
	return d, err
}

// useLocalImage replaces Image by a pause image the pod's node lists among
// its images, if it lists one.
func useLocalImage(ctx context.Context, f *harness.Framework, pod *corev1.Pod) error {
	node, err := f.Client.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("node %s: %w", pod.Spec.NodeName, err)
	}
	local := ""
	for _, img := range node.Status.Images {
		for _, name := range img.Names {
			if name == Image {
				return nil
			}
			if local == "" && strings.Contains(name, "/pause:") {
				local = name
			}
		}
	}
	if local == "" {
		return nil
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Image == Image {
			pod.Spec.Containers[i].Image = local
		}
	}
	return nil
}

// Current returns the pod as stored now.
func Current(ctx context.Context, f *harness.Framework, pod *corev1.Pod) (*corev1.Pod, error) {
	return f.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
}
