package nodedecision

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// KubeletComponent is the event source of kubelets.
const KubeletComponent = "kubelet"

// rejectionEvents names, in the run's absences, the kubelet's Warning
// events about the pods it rejects.
const rejectionEvents = "kubelet-rejection-events"

// EventsAbout waits until the kubelet has recorded a Warning event with
// reason about pod, then returns every event about pod. Events are sent
// asynchronously, so they may land after the pod's status. The wait is the
// ObjectState bound, or, once an earlier case of the run waited that long
// in vain (a kubelet that records none), the NodeAdmission bound, within
// which a working kubelet's event lands: a broken build then fails each
// case at once, naming the first one's wait, and its run takes about as
// long as a passing one.
func EventsAbout(ctx context.Context, f *harness.Framework, pod *corev1.Pod, reason string) ([]corev1.Event, error) {
	bound := f.Bounds.ObjectState.Duration
	earlier, missedBefore := f.Env.Absences().Noted(rejectionEvents)
	if missedBefore {
		bound = f.Bounds.NodeAdmission.Duration
	}
	var events []corev1.Event
	var listErr error
	err := wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, bound, true,
		func(ctx context.Context) (bool, error) {
			list, err := f.Client.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
				FieldSelector: "involvedObject.uid=" + string(pod.UID)})
			if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
				return false, err // waiting cannot help
			}
			if err != nil {
				listErr = err
				return false, nil
			}
			events = list.Items
			for _, e := range events {
				if e.Type == corev1.EventTypeWarning && e.Reason == reason && e.Source.Component == KubeletComponent {
					return true, nil
				}
			}
			return false, nil
		})
	if err == nil {
		if missedBefore {
			f.Env.Absences().Clear(rejectionEvents)
		}
		return events, nil
	}
	if listErr != nil {
		err = fmt.Errorf("%w (last list error: %v)", err, listErr)
	}
	missing := fmt.Sprintf("no Warning event with reason %s from the kubelet about pod %s/%s within %s (events: %s)",
		reason, pod.Namespace, pod.Name, bound, describe(events))
	if missedBefore {
		return events, fmt.Errorf("%s; an earlier case of the run waited the full %s in vain: %s: %w",
			missing, f.Bounds.ObjectState.Duration, earlier, err)
	}
	if ctx.Err() == nil {
		if nerr := f.Env.Absences().Note(rejectionEvents, missing); nerr != nil {
			err = errors.Join(err, nerr)
		}
	}
	return events, fmt.Errorf("%s: %w", missing, err)
}

func describe(events []corev1.Event) string {
	if len(events) == 0 {
		return "none"
	}
	parts := make([]string, len(events))
	for i, e := range events {
		parts[i] = fmt.Sprintf("%s/%s from %s", e.Type, e.Reason, e.Source.Component)
	}
	return strings.Join(parts, ", ")
}
