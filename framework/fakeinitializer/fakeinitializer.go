// Package fakeinitializer is a programmable initializer controller for the
// initializers suite: it watches the pods of one namespace and, when its own
// initializer is at the head of a pod's list (as the reference
// implementation records it on the pod), removes its scheduling gate after a
// delay, or never. It records every state of the pods it saw and every
// removal it made, with monotonic times.
package fakeinitializer

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// Behaviour says what the fake does once its initializer is at the head.
type Behaviour struct {
	// Delay is waited before removing the gate.
	Delay time.Duration
	// Never leaves the gate in place: a crashed or stuck initializer.
	Never bool
}

// Observation is one state of a pod as the fake saw it.
type Observation struct {
	Pod  string
	When time.Time
	// Gates are the pod's scheduling gates, in order.
	Gates []string
	// AtHead says whether this fake's initializer was at the head.
	AtHead bool
}

// Removal is one gate removal the fake made.
type Removal struct {
	Pod string
	// Seen is when the fake first saw its initializer at the head.
	Seen time.Time
	// Sent is just before the removal was sent; Done when it returned.
	Sent, Done time.Time
	Err        error
}

// Controller is a running fake initializer.
type Controller struct {
	name      string
	behaviour Behaviour
	client    kubernetes.Interface
	namespace string
	cancel    context.CancelFunc
	factory   informers.SharedInformerFactory
	done      sync.WaitGroup

	mu        sync.Mutex
	seen      []Observation
	removals  []Removal
	scheduled map[types.UID]bool
	changed   chan struct{}
}

// Start runs a fake for the initializer called name over the pods of
// namespace, and returns once it has synced. Stop ends it.
func Start(ctx context.Context, config *rest.Config, namespace, name string, b Behaviour) (*Controller, error) {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &Controller{
		name: name, behaviour: b, client: client, namespace: namespace, cancel: cancel,
		factory:   informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace)),
		scheduled: map[types.UID]bool{}, changed: make(chan struct{}),
	}
	informer := c.factory.Core().V1().Pods().Informer()
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.observe(runCtx, obj) },
		UpdateFunc: func(_, obj any) { c.observe(runCtx, obj) },
	})
	c.factory.Start(runCtx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		c.Stop()
		return nil, fmt.Errorf("fake initializer %s: informer did not sync: %w", name, ctx.Err())
	}
	return c, nil
}

// Stop ends the fake and waits for removals in progress.
func (c *Controller) Stop() {
	c.cancel()
	c.factory.Shutdown()
	c.done.Wait()
}

// Name is the initializer the fake plays.
func (c *Controller) Name() string { return c.name }

func (c *Controller) observe(ctx context.Context, obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	now := time.Now()
	head, isHead, _ := v1alpha1.Head(pod)
	atHead := isHead && head.Name == c.name
	gates := make([]string, len(pod.Spec.SchedulingGates))
	for i, g := range pod.Spec.SchedulingGates {
		gates[i] = g.Name
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if last, ok := c.lastLocked(pod.Name); !ok || !slices.Equal(last.Gates, gates) {
		c.seen = append(c.seen, Observation{Pod: pod.Name, When: now, Gates: gates, AtHead: atHead})
		c.broadcastLocked()
	}
	if !atHead || c.behaviour.Never || c.scheduled[pod.UID] {
		return
	}
	c.scheduled[pod.UID] = true
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		select {
		case <-time.After(c.behaviour.Delay):
		case <-ctx.Done():
			return
		}
		c.remove(ctx, pod.Name, now)
	}()
}

func (c *Controller) lastLocked(pod string) (Observation, bool) {
	for i := len(c.seen) - 1; i >= 0; i-- {
		if c.seen[i].Pod == pod {
			return c.seen[i], true
		}
	}
	return Observation{}, false
}

// remove takes the fake's gate off the pod, retrying when the gates moved
// between reading and patching.
func (c *Controller) remove(ctx context.Context, podName string, seen time.Time) {
	r := Removal{Pod: podName, Seen: seen}
	for attempt := 0; attempt < 5; attempt++ {
		pod, err := c.client.CoreV1().Pods(c.namespace).Get(ctx, podName, metav1.GetOptions{})
		if err != nil {
			r.Err = err
			break
		}
		i := v1alpha1.GateIndex(pod, c.name)
		if i < 0 {
			r.Err = fmt.Errorf("gate %s is gone from pod %s", c.name, podName)
			break
		}
		patch, err := v1alpha1.RemoveGatePatch(i, c.name)
		if err != nil {
			r.Err = err
			break
		}
		r.Sent = time.Now()
		_, r.Err = c.client.CoreV1().Pods(c.namespace).Patch(ctx, podName, types.JSONPatchType, patch, metav1.PatchOptions{})
		r.Done = time.Now()
		if !apierrors.IsInvalid(r.Err) {
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removals = append(c.removals, r)
	c.broadcastLocked()
}

func (c *Controller) broadcastLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Observations returns the states of pod the fake saw, in order.
func (c *Controller) Observations(pod string) []Observation {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Observation
	for _, o := range c.seen {
		if o.Pod == pod {
			o.Gates = slices.Clone(o.Gates)
			out = append(out, o)
		}
	}
	return out
}

// Removals returns the removals the fake made, in order.
func (c *Controller) Removals() []Removal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.removals)
}

// WaitRemoval returns the fake's removal from pod once made, or ctx's error.
func (c *Controller) WaitRemoval(ctx context.Context, pod string) (Removal, error) {
	for {
		c.mu.Lock()
		changed := c.changed
		for _, r := range c.removals {
			if r.Pod == pod {
				c.mu.Unlock()
				return r, nil
			}
		}
		c.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return Removal{}, fmt.Errorf("fake initializer %s made no removal from pod %s: %w", c.name, pod, ctx.Err())
		}
	}
}
