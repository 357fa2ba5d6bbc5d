package nodedecision

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// Placed is what a node's kubelet counts against the node's allocatable
// when it admits a pod (k8s.io/kubernetes pkg/kubelet/lifecycle/predicate.go,
// which runs the scheduler's noderesources.Fits over the kubelet's active
// pods): the node as it is stored, and the pods bound to it that are not
// terminal.
type Placed struct {
	Node *corev1.Node
	// Pods are the pods bound to the node whose phase is neither Succeeded
	// nor Failed.
	Pods []corev1.Pod
	// Requested is the sum of their requests (PodRequests).
	Requested corev1.ResourceList
}

// PlacedOn waits (up to the ObjectState bound) until the kubelet's count
// and the API's agree, then reads the node and its pods. They may not while
// a pod bound to node
//   - is being deleted while not yet terminal: the kubelet may free its
//     place at any moment;
//   - is in a namespace being deleted (an earlier case's): the namespace
//     controller is about to delete it, and the kubelet then frees its place;
//   - is still Pending: one the kubelet has rejected stays Pending in the
//     API until its status manager writes Failed, yet the kubelet no longer
//     counts it; one it has not seen yet would be counted later.
//
// It is only exact when no other case binds pods to the node meanwhile.
func PlacedOn(ctx context.Context, f *harness.Framework, node string) (*Placed, error) {
	var pods []corev1.Pod
	var unsettled []string
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.ObjectState.Duration, true,
		func(ctx context.Context) (bool, error) {
			list, err := f.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
			if err != nil {
				lastErr = err
				return false, nil
			}
			pods, unsettled = nil, nil
			foreign := false
			for _, pod := range list.Items {
				if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
					continue
				}
				switch {
				case pod.DeletionTimestamp != nil:
					unsettled = append(unsettled, pod.Namespace+"/"+pod.Name+" (terminating)")
				case pod.Status.Phase == corev1.PodPending:
					unsettled = append(unsettled, pod.Namespace+"/"+pod.Name+" (pending)")
				}
				foreign = foreign || pod.Namespace != f.Namespace
				pods = append(pods, pod)
			}
			if len(unsettled) > 0 || !foreign {
				return len(unsettled) == 0, nil
			}
			// One more request, only while other namespaces' pods are on
			// the node (a request per poll counts against the client's
			// rate limit, which the case's other reads share).
			deleting, err := f.Client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{
				LabelSelector: harness.RunLabel + "=" + f.Env.RunID, FieldSelector: "status.phase=Terminating"})
			if err != nil {
				lastErr = err
				return false, nil
			}
			gone := map[string]bool{}
			for _, ns := range deleting.Items {
				gone[ns.Name] = true
			}
			for _, pod := range pods {
				if !gone[pod.Namespace] {
					continue
				}
				unsettled = append(unsettled, pod.Namespace+"/"+pod.Name+" (namespace being deleted)")
				// The namespace controller gets to it late when a run
				// deletes hundreds of namespaces: delete it now, with a
				// grace period, so that it leaves the API only once the
				// kubelet has stopped counting it (then it is seen as
				// terminating above).
				err := f.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
					GracePeriodSeconds: ptr.To[int64](1), Preconditions: metav1.NewUIDPreconditions(string(pod.UID))})
				if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
					lastErr = err
				}
			}
			return len(unsettled) == 0, nil
		})
	if err != nil {
		if len(unsettled) == 0 && lastErr != nil {
			return nil, fmt.Errorf("read the pods on node %s: %w (last error: %v)", node, err, lastErr)
		}
		return nil, fmt.Errorf("pods on node %s not settled (the kubelet's count may differ from the API's): %s: %w", node, strings.Join(unsettled, ", "), err)
	}
	n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read node %s: %w", node, err)
	}
	p := &Placed{Node: n, Pods: pods, Requested: corev1.ResourceList{}}
	for i := range pods {
		for name, q := range PodRequests(&pods[i]) {
			sum := p.Requested[name]
			sum.Add(q)
			p.Requested[name] = sum
		}
	}
	return p, nil
}

// Allocatable is the node's allocatable amount of name, in Amount's unit
// (0 if the node does not list it).
func (p *Placed) Allocatable(name corev1.ResourceName) int64 {
	if name == corev1.ResourcePods {
		return p.Node.Status.Allocatable.Pods().Value()
	}
	q, ok := p.Node.Status.Allocatable[name]
	if !ok {
		return 0
	}
	return Amount(name, q)
}

// Used is how much of name the placed pods hold, in Amount's unit; for
// pods, how many there are.
func (p *Placed) Used(name corev1.ResourceName) int64 {
	if name == corev1.ResourcePods {
		return int64(len(p.Pods))
	}
	q, ok := p.Requested[name]
	if !ok {
		return 0
	}
	return Amount(name, q)
}

// Remaining is Allocatable less Used: the most of name one more pod may
// ask for and still fit.
func (p *Placed) Remaining(name corev1.ResourceName) int64 { return p.Allocatable(name) - p.Used(name) }

// Amount is q in the unit the kubelet counts name in: millicores for CPU,
// bytes for memory and storage, units for the rest.
func Amount(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// Quantity is n of name in Amount's unit.
func Quantity(name corev1.ResourceName, n int64) resource.Quantity {
	switch name {
	case corev1.ResourceCPU:
		return *resource.NewMilliQuantity(n, resource.DecimalSI)
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return *resource.NewQuantity(n, resource.BinarySI)
	default:
		return *resource.NewQuantity(n, resource.DecimalSI)
	}
}

// PodRequests is what the kubelet counts for pod, by the rule of
// k8s.io/component-helpers/resource.PodRequests (which the scheduler's
// NodeInfo, and through it the kubelet, uses): the sum of its containers'
// requests and of its restartable (sidecar) init containers', or, if more,
// the largest of its regular init containers' (each plus the sidecars
// started before it); pod-level requests, where set, replace the
// aggregate for CPU, memory and huge pages; the pod's overhead is added.
func PodRequests(pod *corev1.Pod) corev1.ResourceList {
	reqs := corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		addTo(reqs, c.Resources.Requests)
	}
	sidecars := corev1.ResourceList{}
	initMax := corev1.ResourceList{}
	for _, c := range pod.Spec.InitContainers {
		var during corev1.ResourceList
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addTo(reqs, c.Resources.Requests)
			addTo(sidecars, c.Resources.Requests)
			during = sidecars.DeepCopy()
		} else {
			during = corev1.ResourceList{}
			addTo(during, c.Resources.Requests)
			addTo(during, sidecars)
		}
		for name, q := range during {
			if cur, ok := initMax[name]; !ok || q.Cmp(cur) > 0 {
				initMax[name] = q.DeepCopy()
			}
		}
	}
	for name, q := range initMax {
		if cur, ok := reqs[name]; !ok || q.Cmp(cur) > 0 {
			reqs[name] = q.DeepCopy()
		}
	}
	if pod.Spec.Resources != nil {
		for name, q := range pod.Spec.Resources.Requests {
			if name == corev1.ResourceCPU || name == corev1.ResourceMemory || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
				reqs[name] = q.DeepCopy()
			}
		}
	}
	addTo(reqs, pod.Spec.Overhead)
	return reqs
}

func addTo(sum, more corev1.ResourceList) {
	for name, q := range more {
		cur := sum[name]
		cur.Add(q)
		sum[name] = cur
	}
}
