package controller

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// repairLoop runs a read-repair sweep every RepairInterval.
func (c *Controller) repairLoop(ctx context.Context) {
	if c.readRepairOff() || c.settings.RepairInterval <= 0 {
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
// being initialized, and each one older than the global timeout goes to the
// worker, which applies the failure policy of the head initializer the sweep
// saw (seed 002: "if a global initializer timeout has reached, [...]
// removes the first initializer"). The sweep only finds the pods: acting
// through the worker keeps every change to one pod in one goroutine.
func (c *Controller) Repair(ctx context.Context, now time.Time) error {
	list, err := c.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: v1alpha1.InitializingLabel, ResourceVersion: ""})
	if err != nil {
		return err
	}
	for i := range list.Items {
		pod := &list.Items[i]
		if _, past := c.pastGlobalTimeout(pod, now); !past || pod.Status.Phase == corev1.PodFailed || pod.DeletionTimestamp != nil {
			continue
		}
		head, ok, err := v1alpha1.Head(pod)
		if err != nil || !ok {
			continue
		}
		key := pod.Namespace + "/" + pod.Name
		c.mu.Lock()
		c.repairs[key] = head.Name
		c.mu.Unlock()
		c.loop.AddAfter(key, 0)
	}
	return nil
}

// pastGlobalTimeout returns the pod's age at now and whether it is past the
// global timeout. Ages come from creationTimestamp, the apiserver's wall
// clock, in whole seconds: a pod is past once its age exceeds the global
// timeout by more than that truncation.
func (c *Controller) pastGlobalTimeout(pod *corev1.Pod, now time.Time) (time.Duration, bool) {
	if c.readRepairOff() {
		return 0, false
	}
	age := now.Sub(pod.CreationTimestamp.Time)
	return age, age > c.settings.GlobalTimeout+time.Second
}

func (c *Controller) readRepairOff() bool {
	return c.settings.NoReadRepair || c.settings.GlobalTimeout <= 0
}
