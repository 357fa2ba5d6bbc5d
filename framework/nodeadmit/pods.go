package nodeadmit

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// Image is the image of every pod the specs create; a hollow node's fake
// runtime pulls anything, a real node needs nothing but the pause image.
const Image = "registry.k8s.io/pause:3.10"

// Pod is a minimal pod called name in the case's namespace, bound to node by
// spec.nodeName so no scheduler takes part. It mounts no token, so that
// nothing but admission stands between the node and running it.
func Pod(f *harness.Framework, node, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace,
			Labels: map[string]string{harness.RunLabel: f.Env.RunID}},
		Spec: corev1.PodSpec{
			NodeName:                      node,
			AutomountServiceAccountToken:  ptr.To(false),
			RestartPolicy:                 corev1.RestartPolicyNever,
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers:                    []corev1.Container{{Name: "c", Image: Image}},
		},
	}
}

// Decide creates pod and waits (up to the ObjectState bound) for its node's
// decision. It first waits for the namespace's default ServiceAccount,
// without which the apiserver refuses pods.
func Decide(ctx context.Context, f *harness.Framework, pod *corev1.Pod) (nodes.Decision, error) {
	err := wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.ObjectState.Duration, true,
		func(ctx context.Context) (bool, error) {
			_, err := f.Client.CoreV1().ServiceAccounts(pod.Namespace).Get(ctx, "default", metav1.GetOptions{})
			return err == nil, nil
		})
	if err != nil {
		return nodes.Decision{}, fmt.Errorf("namespace %s has no default ServiceAccount: %w", pod.Namespace, err)
	}
	return nodes.CreateAndDecide(ctx, f.Client, pod, f.Bounds.ObjectState.Duration)
}

// Current returns the pod as stored now.
func Current(ctx context.Context, f *harness.Framework, pod *corev1.Pod) (*corev1.Pod, error) {
	return f.Client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
}
