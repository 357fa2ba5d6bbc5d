package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// timeOut applies the head initializer's failure policy: Ignore removes its
// gate, Fail fails the pod. The reasons name what timed out (the
// initializer's own timeout or the global one).
func (c *Controller) timeOut(ctx context.Context, pod *corev1.Pod, a v1alpha1.Assigned, failReason, ignoreReason, why string) error {
	if a.FailurePolicy == v1alpha1.Fail {
		msg := fmt.Sprintf("initializer %s (failurePolicy Fail) %s", a.Name, why)
		if err := c.fail(ctx, pod, failReason, msg); err != nil {
			return err
		}
		c.event(ctx, pod, failReason, msg+": the pod failed")
		return nil
	}
	i := v1alpha1.GateIndex(pod, a.Name)
	if i < 0 {
		return nil // gone meanwhile
	}
	patch, err := v1alpha1.RemoveGatePatch(i, a.Name)
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case apierrors.IsInvalid(err) || apierrors.IsConflict(err):
		// The gates moved under us (another initializer finished): the
		// update event brings the pod back with its new state.
		return nil
	case err != nil:
		return fmt.Errorf("remove gate %s: %w", a.Name, err)
	}
	c.event(ctx, pod, ignoreReason, fmt.Sprintf("initializer %s (failurePolicy Ignore) %s: removed", a.Name, why))
	return nil
}

// fail marks the pod Failed, keeping its gates.
func (c *Controller) fail(ctx context.Context, pod *corev1.Pod, reason, msg string) error {
	status := map[string]any{"status": map[string]any{
		"phase": corev1.PodFailed, "reason": reason, "message": msg,
		"conditions": []map[string]any{{
			"type": v1alpha1.InitializedCondition, "status": corev1.ConditionFalse, "reason": reason, "message": msg,
			"lastTransitionTime": metav1.Now(),
		}},
	}}
	patch, err := json.Marshal(status)
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fail pod: %w", err)
	}
	return nil
}

// finish removes the initializing label from a pod with nothing left to
// wait for (initialized, failed, or going away).
func (c *Controller) finish(ctx context.Context, pod *corev1.Pod) error {
	if _, ok := pod.Labels[v1alpha1.InitializingLabel]; !ok {
		return nil
	}
	patch, err := v1alpha1.FinishPatch()
	if err != nil {
		return err
	}
	_, err = c.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
	if apierrors.IsInvalid(err) {
		// The label's test failed if it is gone: finished already.
		current, gerr := c.client.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if gerr == nil {
			if _, ok := current.Labels[v1alpha1.InitializingLabel]; !ok {
				return nil
			}
		}
		err = errors.Join(err, gerr)
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// event records what the controller did to the pod. A lost event is
// logged, not retried: the change it reports is done.
func (c *Controller) event(ctx context.Context, pod *corev1.Pod, reason, msg string) {
	now := metav1.Now()
	ev := &corev1.Event{
		// Named as client-go's event recorder names events.
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", pod.Name, now.UnixNano()), Namespace: pod.Namespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name,
			UID: pod.UID, ResourceVersion: pod.ResourceVersion},
		Reason: reason, Message: msg, Type: corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: v1alpha1.EventSource},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if _, err := c.client.CoreV1().Events(pod.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		c.log.Info("event not recorded", "pod", pod.Namespace+"/"+pod.Name, "reason", reason, "error", err.Error())
	}
}
