package kind

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// A fresh kubelet shows its first rejections only at its status manager's
// first full sync, ~10 s after it starts; from then on in tens of
// milliseconds on a worker (measured here: 25-140 ms; a control plane of an
// ha cluster on 2 cores: ~1.5 s). The provider sends the nodes specs place
// pods on (the workers, or the control planes of a cluster without any)
// pods they must reject until two in a row show within warmRejection, so
// specs time steady-state kubelets, as the embedded cluster's hollow nodes
// are warmed up. A node that does not warm up is logged, not fatal: specs
// that time it say so.
const (
	warmRejection = time.Second
	warmUpTimeout = time.Minute
	warmUpPrefix  = "admission-conformance-warm-up-"
)

func (c *kindCluster) warmUp(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(c.config)
	if err != nil {
		return err
	}
	used := c.workers
	if len(used) == 0 {
		used = c.controlPlanes
	}
	errs := make(chan error, len(used))
	for _, n := range used {
		go func() { errs <- warmUpNode(ctx, client, n) }()
	}
	var joined []error
	for range used {
		joined = append(joined, <-errs)
	}
	if err := errors.Join(joined...); err != nil {
		if ctx.Err() != nil {
			return err
		}
		c.logger.Info("kubelet warm-up incomplete: rejection timings may include a kubelet's first sync", "error", err.Error())
	}
	return nil
}

func warmUpNode(ctx context.Context, client kubernetes.Interface, node string) error {
	deadline := time.Now().Add(warmUpTimeout)
	var latencies []time.Duration
	var lastErr error
	for i := 0; time.Now().Before(deadline); i++ {
		d, err := rejectionLatency(ctx, client, warmUpPod(node, i), time.Until(deadline))
		if ctx.Err() != nil {
			return fmt.Errorf("warm up node %s: %w", node, ctx.Err())
		}
		if err != nil {
			// e.g. the namespace's default ServiceAccount is not there yet
			lastErr = err
			time.Sleep(500 * time.Millisecond)
			continue
		}
		latencies = append(latencies, d)
		if k := len(latencies); k >= 2 && latencies[k-1] < warmRejection && latencies[k-2] < warmRejection {
			return nil
		}
	}
	return fmt.Errorf("node %s did not warm up within %s: rejection latencies %v, last error: %v", node, warmUpTimeout, latencies, lastErr)
}

// rejectionLatency creates pod and returns how long until it shows Failed;
// the pod is deleted either way.
func rejectionLatency(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod, timeout time.Duration) (time.Duration, error) {
	pods := client.CoreV1().Pods(pod.Namespace)
	start := time.Now()
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return 0, err
	}
	defer func() {
		_ = pods.Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	}()
	for time.Since(start) < timeout {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return 0, err
		}
		switch p.Status.Phase {
		case corev1.PodFailed:
			return time.Since(start), nil
		case corev1.PodRunning, corev1.PodSucceeded:
			return 0, fmt.Errorf("pod %s with a forbidden sysctl was admitted", pod.Name)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("pod %s not rejected within %s", pod.Name, timeout)
}

// warmUpPod sets a sysctl outside the kubelet's safe set: every kubelet
// rejects it (SysctlForbidden) without running anything.
func warmUpPod(node string, i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s%s-%d", warmUpPrefix, node, i), Namespace: metav1.NamespaceDefault},
		Spec: corev1.PodSpec{
			NodeName:                     node,
			AutomountServiceAccountToken: ptr.To(false),
			RestartPolicy:                corev1.RestartPolicyNever,
			SecurityContext:              &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "kernel.msgmax", Value: "65536"}}},
			Containers:                   []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}
