package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// repairLoop runs a read-repair sweep every RepairInterval.
func (c *Controller) repairLoop(ctx context.Context) {
	if c.settings.GlobalTimeout <= 0 || c.settings.RepairInterval <= 0 {
		return
	}
	ticker := time.NewTicker(c.settings.RepairInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if err := c.Repair(ctx, time.Now()); err != nil && ctx.Err() == nil {
			c.log.Info("read repair failed", "error", err.Error())
		}
	}
}

// Repair is one read-repair sweep at now: a consistent LIST of the pods
// being initialized, and for each one older than the global timeout, its
// head initializer's failure policy is applied (seed 002: "if a global
// initializer timeout has reached, [...] removes the first initializer").
// Ages come from creationTimestamp, the apiserver's wall clock, in whole
// seconds: the sweep acts once the age exceeds the global timeout by more
// than that truncation.
func (c *Controller) Repair(ctx context.Context, now time.Time) error {
	list, err := c.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.InitializingLabel, ResourceVersion: ""})
	if err != nil {
		return err
	}
	for i := range list.Items {
		pod := &list.Items[i]
		if pod.Status.Phase == corev1.PodFailed || pod.DeletionTimestamp != nil {
			continue
		}
		age := now.Sub(pod.CreationTimestamp.Time)
		if age <= c.settings.GlobalTimeout+time.Second {
			continue
		}
		head, ok, err := v1alpha1.Head(pod)
		if err != nil || !ok {
			continue
		}
		why := fmt.Sprintf("had not finished when the pod was %s old (global timeout %s)", age.Truncate(time.Second), c.settings.GlobalTimeout)
		if err := c.timeOut(ctx, pod, head, v1alpha1.ReasonGlobalTimeout, v1alpha1.ReasonGlobalTimeout, why); err != nil {
			return err
		}
	}
	return nil
}
