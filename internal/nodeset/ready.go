package nodeset

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// waitReady returns once the node is registered and its Ready condition is
// True, or fails early if its process exits.
func waitReady(ctx context.Context, client kubernetes.Interface, n *node, timeout, poll time.Duration) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, poll, timeout, true, func(ctx context.Context) (bool, error) {
		if err := n.proc.ExitError(); err != nil {
			return false, err
		}
		node, err := client.CoreV1().Nodes().Get(ctx, n.config.Name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		c := ReadyCondition(node)
		if c == nil {
			last = "no Ready condition yet"
			return false, nil
		}
		last = fmt.Sprintf("Ready=%s (%s)", c.Status, c.Message)
		return c.Status == corev1.ConditionTrue, nil
	})
	if err != nil {
		return fmt.Errorf("%s not Ready: %w (last seen: %s)", n.config.Name, err, last)
	}
	return nil
}

// ReadyCondition returns the node's Ready condition, nil if it has none yet.
func ReadyCondition(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}
