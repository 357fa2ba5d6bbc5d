package nodeset

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
)

// warmNodeRejection is the rejection latency below which a hollow node
// counts as warm. A fresh kubelet publishes its first rejections as phase
// Pending (its pod workers have not synced yet, so it cannot call the pod
// finished) and only corrects them at its status manager's first full sync,
// 10 s after it starts; from then on a rejection shows in milliseconds.
const warmNodeRejection = 500 * time.Millisecond

// warmUpNamespace holds the warm-up pods; it exists in every cluster.
const warmUpNamespace = metav1.NamespaceDefault

// WarmUp sends nodes pods their kubelets must reject until each rejects
// two in a row within Threshold, so that specs time steady-state kubelets.
// The embedded cluster's hollow nodes and the kind provider's nodes use it.
type WarmUp struct {
	// Threshold is the rejection latency below which a node counts as warm.
	Threshold time.Duration
	// Timeout bounds each node's warm-up, ReadyTimeout the wait for the
	// warm-up namespace's default ServiceAccount; Poll is the gap between
	// probes.
	Timeout, ReadyTimeout, Poll time.Duration
	// Exited, if set, says why a node's process has gone (nil while it
	// runs), so a failed rejection names the cause.
	Exited func(node string) error
	Logger logr.Logger
}

// Nodes warms up the named nodes side by side.
func (w WarmUp) Nodes(ctx context.Context, client kubernetes.Interface, names []string) error {
	if err := ensureServiceAccount(ctx, client, w.ReadyTimeout, w.Poll); err != nil {
		return err
	}
	errs := make(chan error, len(names))
	for _, name := range names {
		go func() { errs <- w.node(ctx, client, name) }()
	}
	var all []error
	for range names {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

func (w WarmUp) node(ctx context.Context, client kubernetes.Interface, name string) error {
	deadline := time.Now().Add(w.Timeout)
	var latencies []time.Duration
	for i := 0; ; i++ {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			// A kubelet that never rejects promptly is the implementation's
			// fault, not the harness's: the specs that time rejections say so.
			w.Logger.Info("WARNING: node did not warm up; rejection timings may include its start-up",
				"node", name, "timeout", w.Timeout, "rejectionLatencies", latencies)
			return nil
		}
		d, err := nodes.CreateAndDecide(ctx, client, warmUpPod(name, i), remaining)
		if d.Pod != nil {
			_ = client.CoreV1().Pods(warmUpNamespace).Delete(context.Background(), d.Pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		}
		if err != nil {
			if w.Exited != nil {
				if perr := w.Exited(name); perr != nil {
					return perr
				}
			}
			return fmt.Errorf("%s warm-up: %w", name, err)
		}
		if d.Admitted {
			// A kubelet that runs a pod it must reject is what the node
			// admission specs are there to report; the run goes on to them.
			w.Logger.Info("WARNING: node admitted a pod setting an unsafe sysctl it does not allow: its kubelet does not reject pods as it must",
				"node", name, "pod", d.Pod.Name, "phase", d.Pod.Status.Phase)
			return nil
		}
		latencies = append(latencies, d.Latency)
		k := len(latencies)
		if k >= 2 && latencies[k-1] < w.Threshold && latencies[k-2] < w.Threshold {
			w.Logger.V(1).Info("node warm", "node", name, "rejectionLatencies", latencies)
			return nil
		}
	}
}

// warmUp warms up the hollow nodes of a set.
func warmUp(ctx context.Context, client kubernetes.Interface, nodes []*node, o Options) error {
	names := make([]string, len(nodes))
	byName := map[string]*node{}
	for i, n := range nodes {
		names[i], byName[n.config.Name] = n.config.Name, n
	}
	w := WarmUp{Threshold: warmNodeRejection, Timeout: o.WarmUpTimeout, ReadyTimeout: o.ReadyTimeout, Poll: o.Poll,
		Exited: func(name string) error { return byName[name].proc.ExitError() }, Logger: o.Logger}
	return w.Nodes(ctx, client, names)
}

// warmUpPod sets a sysctl outside the kubelet's safe set. The kubelet's
// sysctl handler rejects it ahead of the predicate handler and of any plugin
// host, so even the harness's deliberately broken nodes reject it, and the
// warm-up never calls a plugin.
func warmUpPod(node string, i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: warmUpPodName(node, i), Namespace: warmUpNamespace},
		Spec: corev1.PodSpec{
			NodeName:                     node,
			AutomountServiceAccountToken: ptr.To(false),
			RestartPolicy:                corev1.RestartPolicyNever,
			SecurityContext:              &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "kernel.msgmax", Value: "65536"}}},
			Containers:                   []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}

// warmUpPodName names the node's i-th warm-up pod after the node where that
// keeps the name a DNS label (a pod's hostname; longer names draw an API
// warning), after a hash of the node's name where not (kind's node names are
// 37-45 characters): spec.nodeName still says which node.
func warmUpPodName(node string, i int) string {
	const prefix = "admission-conformance-warm-up-"
	if name := fmt.Sprintf("%s%s-%d", prefix, node, i); len(name) <= validation.DNS1123LabelMaxLength {
		return name
	}
	sum := sha256.Sum256([]byte(node))
	return fmt.Sprintf("%s%x-%d", prefix, sum[:6], i)
}

// ensureServiceAccount waits for the warm-up namespace's default
// ServiceAccount (the controller manager makes it; without one the
// ServiceAccount admission plugin refuses pods), creating it if no
// controller manager does within the wait.
func ensureServiceAccount(ctx context.Context, client kubernetes.Interface, timeout, poll time.Duration) error {
	sas := client.CoreV1().ServiceAccounts(warmUpNamespace)
	err := wait.PollUntilContextTimeout(ctx, poll, timeout, true, func(ctx context.Context) (bool, error) {
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
