package controller

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

func heldPod(t *testing.T, name string, created time.Time, assigned ...v1alpha1.Assigned) *corev1.Pod {
	t.Helper()
	raw, err := v1alpha1.EncodeAssigned(assigned)
	if err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: "ns", CreationTimestamp: metav1.NewTime(created),
		Labels:      map[string]string{v1alpha1.InitializingLabel: "true"},
		Annotations: map[string]string{v1alpha1.AssignedAnnotation: raw},
	}}
	for _, a := range assigned {
		p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: a.Name})
	}
	return p
}

func TestRepairActsOnTheHeadOfPodsOlderThanTheGlobalTimeout(t *testing.T) {
	now := time.Now()
	ignore := v1alpha1.Assigned{Name: "x.io/ignore", FailurePolicy: v1alpha1.Ignore, TimeoutSeconds: 3600}
	fail := v1alpha1.Assigned{Name: "x.io/fail", FailurePolicy: v1alpha1.Fail, TimeoutSeconds: 3600}
	client := fake.NewClientset(
		heldPod(t, "old-ignore", now.Add(-11*time.Minute), ignore, fail),
		heldPod(t, "old-fail", now.Add(-11*time.Minute), fail),
		heldPod(t, "young", now.Add(-9*time.Minute), ignore),
	)
	// NoTimeouts: only the global timeout may act.
	c := New(client, Settings{NoTimeouts: true, GlobalTimeout: 10 * time.Minute, RepairInterval: time.Hour}, logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); c.Wait() }()
	c.Start(ctx)
	if err := c.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Repair(ctx, now); err != nil {
		t.Fatal(err)
	}
	// The worker acts on what the sweep found.
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err := client.CoreV1().Events("ns").List(ctx, metav1.ListOptions{})
		return err == nil && len(events.Items) >= 2, err
	})
	if err != nil {
		t.Fatalf("read repair did not act on the old pods: %v", err)
	}
	get := func(name string) *corev1.Pod {
		p, err := client.CoreV1().Pods("ns").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := get("old-ignore"); len(p.Spec.SchedulingGates) != 1 || p.Spec.SchedulingGates[0].Name != fail.Name {
		t.Errorf("old-ignore: only the head (Ignore) must go, gates %v", p.Spec.SchedulingGates)
	}
	if p := get("old-fail"); p.Status.Phase != corev1.PodFailed || p.Status.Reason != v1alpha1.ReasonGlobalTimeout || len(p.Spec.SchedulingGates) != 1 {
		t.Errorf("old-fail: %s %s, gates %v", p.Status.Phase, p.Status.Reason, p.Spec.SchedulingGates)
	}
	if p := get("young"); len(p.Spec.SchedulingGates) != 1 || p.Status.Phase != "" {
		t.Errorf("young pod touched: %+v", p.Status)
	}
	events, err := client.CoreV1().Events("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) != 2 {
		t.Fatalf("%d events, want 2", len(events.Items))
	}
	for _, e := range events.Items {
		if e.Reason != v1alpha1.ReasonGlobalTimeout || e.Type != corev1.EventTypeWarning {
			t.Errorf("event %s %s", e.Type, e.Reason)
		}
	}
}

func TestNoReadRepairLeavesOldPodsAlone(t *testing.T) {
	ignore := v1alpha1.Assigned{Name: "x.io/ignore", FailurePolicy: v1alpha1.Ignore, TimeoutSeconds: 3600}
	client := fake.NewClientset(heldPod(t, "old", time.Now().Add(-11*time.Minute), ignore))
	c := New(client, Settings{NoReadRepair: true, GlobalTimeout: 10 * time.Minute, RepairInterval: time.Hour}, logr.Discard())
	ctx, cancel := context.WithCancel(context.Background())
	c.Start(ctx)
	if err := c.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Repair(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	cancel()
	c.Wait() // the worker has finished whatever the sweep gave it
	p, err := client.CoreV1().Pods("ns").Get(context.Background(), "old", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.SchedulingGates) != 1 {
		t.Errorf("gates %v: read repair acted although it is off", p.Spec.SchedulingGates)
	}
}
