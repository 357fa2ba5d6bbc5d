package nodedecision

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// DecideStarted is Decide for a pod whose regular init container init
// never ends (a fake runtime ends no container; the pause image never
// exits): it creates pod and waits (up to the ObjectState bound) until its
// node either rejects it (phase Failed) or runs init, which shows the node
// admitted it though the pod stays Pending. Init containers using Image
// get the same local image as Decide gives the containers.
func DecideStarted(ctx context.Context, f *harness.Framework, pod *corev1.Pod, init string) (nodes.Decision, error) {
	ctx, stop := f.Env.WatchNode(ctx, pod.Spec.NodeName)
	defer stop()
	if err := useLocalImage(ctx, f, pod); err != nil {
		return nodes.Decision{}, err
	}
	if len(pod.Spec.Containers) > 0 {
		for i := range pod.Spec.InitContainers {
			if pod.Spec.InitContainers[i].Image == Image {
				pod.Spec.InitContainers[i].Image = pod.Spec.Containers[0].Image
			}
		}
	}
	start := time.Now()
	if _, err := f.Client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return nodes.Decision{}, fmt.Errorf("create pod %s: %w", pod.Name, err)
	}
	var d nodes.Decision
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.ObjectState.Duration, true,
		func(ctx context.Context) (bool, error) {
			cur, err := Current(ctx, f, pod)
			if err != nil {
				return false, nil
			}
			last = cur
			if cur.Status.Phase == corev1.PodFailed {
				d = nodes.Decision{Pod: cur, Latency: time.Since(start)}
				return true, nil
			}
			for _, s := range cur.Status.InitContainerStatuses {
				if s.Name == init && s.State.Running != nil {
					d = nodes.Decision{Pod: cur, Admitted: true, Latency: time.Since(start)}
					return true, nil
				}
			}
			return false, nil
		})
	if err != nil {
		if died := f.Env.DeadNode(pod.Spec.NodeName); died != nil {
			return nodes.Decision{Pod: last}, died
		}
		phase := corev1.PodPhase("unknown")
		if last != nil {
			phase = last.Status.Phase
		}
		return nodes.Decision{Pod: last}, fmt.Errorf("node %s neither rejected pod %s nor ran its init container %s within %s (phase %s): %w",
			pod.Spec.NodeName, pod.Name, init, f.Bounds.ObjectState.Duration, phase, err)
	}
	return d, nil
}
