package kind

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// waitNodesReady waits until every node of the cluster is Ready: kind itself
// waits for the control planes only, and specs place pods on workers.
func (c *kindCluster) waitNodesReady(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(c.config)
	if err != nil {
		return err
	}
	want := len(c.controlPlanes) + len(c.workers)
	var notReady []string
	err = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		notReady = notReady[:0]
		for _, n := range nodes.Items {
			if !ready(n) {
				notReady = append(notReady, n.Name)
			}
		}
		return len(nodes.Items) >= want && len(notReady) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("kind cluster %s: nodes not Ready (%v): %w", c.name, notReady, err)
	}
	return nil
}

func ready(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
