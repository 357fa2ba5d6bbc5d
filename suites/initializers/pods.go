package initializers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// subjectLabel marks a spec's pods; its value is the pod's name.
const subjectLabel = "admission-conformance.io/subject"

// newPod is a pod that is never really run (its image is never pulled) and
// goes away at once when deleted, held by gates.
func newPod(namespace, prefix string, gates ...string) *corev1.Pod {
	name := prefix + "-" + rand.String(5)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{subjectLabel: name}},
		Spec: corev1.PodSpec{
			Containers:                    []corev1.Container{{Name: "c", Image: "registry.invalid/admission-conformance/never-pulled"}},
			TerminationGracePeriodSeconds: ptr.To[int64](0),
		},
	}
	for _, g := range gates {
		p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: g})
	}
	return p
}

// gateNames lists a pod's scheduling gates in order.
func gateNames(p *corev1.Pod) []string {
	out := make([]string, len(p.Spec.SchedulingGates))
	for i, g := range p.Spec.SchedulingGates {
		out[i] = g.Name
	}
	return out
}

// gate is a qualified gate name unique to the spec's namespace.
func gate(f *harness.Framework, name string) string {
	return f.Namespace + ".admission-conformance.io/" + name
}

// watchPod watches the pod called name from resourceVersion rv until cond
// holds, and returns the pod and when the watch delivered it (monotonic).
func watchPod(ctx context.Context, f *harness.Framework, name, rv string, timeout time.Duration, cond func(*corev1.Pod) bool) (*corev1.Pod, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	w, err := f.Client.CoreV1().Pods(f.Namespace).Watch(ctx, metav1.ListOptions{
		FieldSelector: "metadata.name=" + name, ResourceVersion: rv, AllowWatchBookmarks: false,
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	defer w.Stop()
	var last *corev1.Pod
	for {
		select {
		case <-ctx.Done():
			return last, time.Now(), fmt.Errorf("pod %s did not reach the state within %s: %w", name, timeout, ctx.Err())
		case ev, ok := <-w.ResultChan():
			now := time.Now()
			if !ok {
				return last, now, fmt.Errorf("watch of pod %s ended", name)
			}
			switch ev.Type {
			case watch.Error:
				return last, now, apierrors.FromObject(ev.Object)
			case watch.Deleted:
				return last, now, fmt.Errorf("pod %s was deleted", name)
			}
			if p, ok := ev.Object.(*corev1.Pod); ok {
				last = p
				if cond(p) {
					return p, now, nil
				}
			}
		}
	}
}

// bound reports whether the scheduler bound the pod.
func bound(p *corev1.Pod) bool { return p.Spec.NodeName != "" }

// schedulingGated reports whether the pod shows PodScheduled=False with
// reason SchedulingGated.
func schedulingGated(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonSchedulingGated
		}
	}
	return false
}

// within records d as a measurement bounded by [lower, upper] (lower 0: no
// lower bound) and returns it.
func within(f *harness.Framework, name string, d, lower, upper time.Duration, labels map[string]string) results.Measurement {
	up := upper.Seconds()
	m := results.Measurement{Name: name, Value: d.Seconds(), Unit: "s", Bound: &up, Labels: labels}
	if lower > 0 {
		lo := lower.Seconds()
		m.Lower = &lo
	}
	f.Record(m)
	return m
}
