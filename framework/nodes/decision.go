package nodes

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// Decision is how a node's kubelet answered a pod bound to it.
type Decision struct {
	// Pod is the pod as it was when the decision showed.
	Pod *corev1.Pod
	// Admitted is true when the pod started running, false when the kubelet
	// failed it.
	Admitted bool
	// Latency runs from just before the create to the watch event that
	// showed the decision: a rejected pod's Failed status, or the first
	// status the kubelet wrote for an admitted pod (status.startTime, set
	// when its pod worker starts syncing the pod, right after admission).
	// Not the Running status: kubelets before 1.36 show that only after
	// their next PLEG relist, up to a second later, which is pod start-up,
	// not admission.
	Latency time.Duration
}

// CreateAndDecide creates pod (which must name its node) and waits, up to
// timeout, until the kubelet has either failed it (rejected) or run it
// (admitted). The pod is left in place; the caller deletes it.
func CreateAndDecide(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod, timeout time.Duration) (Decision, error) {
	if pod.Spec.NodeName == "" {
		return Decision{}, fmt.Errorf("pod %s names no node", pod.Name)
	}
	if pod.Name == "" {
		return Decision{}, fmt.Errorf("pod in %s has no name: a decision is watched by name", pod.Namespace)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pods := client.CoreV1().Pods(pod.Namespace)
	w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + pod.Name})
	if err != nil {
		return Decision{}, fmt.Errorf("watch pod %s: %w", pod.Name, err)
	}
	defer w.Stop()
	start := time.Now()
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return Decision{}, fmt.Errorf("create pod %s: %w", pod.Name, err)
	}
	last := created
	var admitted time.Duration // when the kubelet first wrote status for an admitted pod
	for {
		select {
		case <-ctx.Done():
			return Decision{Pod: last}, fmt.Errorf("node %s decided nothing about pod %s within %s (phase %s, reason %q)",
				pod.Spec.NodeName, pod.Name, timeout, last.Status.Phase, last.Status.Reason)
		case ev, ok := <-w.ResultChan():
			if !ok {
				// The watch ended early (apiserver timeout); carry on from
				// where it was.
				if w, err = pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + pod.Name,
					ResourceVersion: last.ResourceVersion}); err != nil {
					return Decision{Pod: last}, fmt.Errorf("watch pod %s again: %w", pod.Name, err)
				}
				continue
			}
			p, isPod := ev.Object.(*corev1.Pod)
			if !isPod || p.UID != created.UID {
				continue
			}
			if ev.Type == watch.Deleted {
				return Decision{Pod: p}, fmt.Errorf("pod %s was deleted before node %s decided (phase %s)", pod.Name, pod.Spec.NodeName, p.Status.Phase)
			}
			last = p
			switch p.Status.Phase {
			case corev1.PodFailed:
				return Decision{Pod: p, Latency: time.Since(start)}, nil
			case corev1.PodRunning, corev1.PodSucceeded:
				latency := time.Since(start)
				if admitted > 0 {
					latency = admitted
				}
				return Decision{Pod: p, Admitted: true, Latency: latency}, nil
			default:
				if admitted == 0 && p.Status.StartTime != nil {
					admitted = time.Since(start)
				}
			}
		}
	}
}
