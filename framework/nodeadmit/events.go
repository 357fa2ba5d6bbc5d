package nodeadmit

import (
	"context"
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

// EventsAbout waits (up to the ObjectState bound) until the kubelet has
// recorded a Warning event with reason about pod, then returns every event
// about pod. Events are sent asynchronously, so they may land after the
// pod's status.
func EventsAbout(ctx context.Context, f *harness.Framework, pod *corev1.Pod, reason string) ([]corev1.Event, error) {
	var events []corev1.Event
	var listErr error
	err := wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.ObjectState.Duration, true,
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
	if err != nil {
		if listErr != nil {
			err = fmt.Errorf("%w (last list error: %v)", err, listErr)
		}
		return events, fmt.Errorf("no Warning event with reason %s from the kubelet about pod %s (events: %s): %w",
			reason, pod.Name, describe(events), err)
	}
	return events, nil
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
