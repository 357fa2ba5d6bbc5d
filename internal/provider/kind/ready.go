package kind

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/internal/nodeset"
)

// waitNodesReady waits until every node of the cluster is Ready: kind itself
// waits for the control planes only, and specs place pods on workers.
func (c *kindCluster) waitNodesReady(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(c.config)
	if err != nil {
		return err
	}
	want := len(c.kubeletNodes())
	var notReady []string
	err = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		notReady = notReady[:0]
		for i := range list.Items {
			n := &list.Items[i]
			if c := nodeset.ReadyCondition(n); c == nil || c.Status != corev1.ConditionTrue {
				notReady = append(notReady, n.Name)
			}
		}
		return len(list.Items) >= want && len(notReady) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("kind cluster %s: nodes not Ready (%v): %w", c.name, notReady, err)
	}
	return nil
}
