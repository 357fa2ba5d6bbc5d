package nodes

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// warmNodeRejection is the rejection latency below which a node counts as
// warm. A fresh kubelet publishes its first rejections as phase Pending (its
// pod workers have not synced yet, so it cannot call the pod finished) and
// only corrects them at its status manager's first full sync, 10 s after it
// starts; from then on a rejection shows in milliseconds.
const warmNodeRejection = 500 * time.Millisecond

// warmUpNamespace holds the warm-up pods; it exists in every cluster.
const warmUpNamespace = metav1.NamespaceDefault

// warmUp sends each node pods it must reject until it rejects two in a row
// quickly, so that specs time steady-state rejections. Nodes warm up side by
// side.
func warmUp(ctx context.Context, client kubernetes.Interface, nodes []*node, o Options) error {
	if err := ensureServiceAccount(ctx, client, o); err != nil {
		return err
	}
	errs := make(chan error, len(nodes))
	for _, n := range nodes {
		go func() { errs <- warmUpNode(ctx, client, n, o) }()
	}
	var all []error
	for range nodes {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

func warmUpNode(ctx context.Context, client kubernetes.Interface, n *node, o Options) error {
	deadline := time.Now().Add(o.WarmUpTimeout)
	var latencies []time.Duration
	for i := 0; ; i++ {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return fmt.Errorf("%s did not warm up within %s: rejection latencies %v", n.config.Name, o.WarmUpTimeout, latencies)
		}
		d, err := CreateAndDecide(ctx, client, warmUpPod(n.config.Name, i), remaining)
		if d.Pod != nil {
			_ = client.CoreV1().Pods(warmUpNamespace).Delete(context.Background(), d.Pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		}
		if err != nil {
			if perr := n.proc.ExitError(); perr != nil {
				return perr
			}
			return fmt.Errorf("%s warm-up: %w", n.config.Name, err)
		}
		if d.Admitted {
			return fmt.Errorf("%s warm-up: admitted a pod setting an unsafe sysctl it does not allow", n.config.Name)
		}
		latencies = append(latencies, d.Latency)
		k := len(latencies)
		if k >= 2 && latencies[k-1] < warmNodeRejection && latencies[k-2] < warmNodeRejection {
			o.Logger.V(1).Info("node warm", "node", n.config.Name, "rejectionLatencies", latencies)
			return nil
		}
	}
}

// warmUpPod sets a sysctl outside the kubelet's safe set. The kubelet's
// sysctl handler rejects it ahead of the predicate handler and of any plugin
// host, so even the harness's deliberately broken nodes reject it, and the
// warm-up never calls a plugin.
func warmUpPod(node string, i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("warm-up-%s-%d", node, i), Namespace: warmUpNamespace},
		Spec: corev1.PodSpec{
			NodeName:                     node,
			AutomountServiceAccountToken: ptr.To(false),
			RestartPolicy:                corev1.RestartPolicyNever,
			SecurityContext:              &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "kernel.msgmax", Value: "65536"}}},
			Containers:                   []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}

// ensureServiceAccount waits for the warm-up namespace's default
// ServiceAccount (the controller manager makes it; without one the
// ServiceAccount admission plugin refuses pods), creating it if no
// controller manager does within the wait.
func ensureServiceAccount(ctx context.Context, client kubernetes.Interface, o Options) error {
	sas := client.CoreV1().ServiceAccounts(warmUpNamespace)
	err := wait.PollUntilContextTimeout(ctx, o.Poll, o.ReadyTimeout, true, func(ctx context.Context) (bool, error) {
		_, err := sas.Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = sas.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
		}
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("default ServiceAccount in %s: %w", warmUpNamespace, err)
	}
	return nil
}
