package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
	"github.com/admission-conformance/admission-conformance/reference/initializers/internal/keyloop"
)

// Settings tune the controller.
type Settings struct {
	// NoTimeouts never enforces per-initializer timeouts, and NoReadRepair
	// never the global one: deliberately broken implementations, for the
	// harness's own tests.
	NoTimeouts   bool
	NoReadRepair bool
	// GlobalTimeout is the age after which read repair acts on a pod's
	// head initializer (seed 002's example: 10 minutes); 0 turns read
	// repair off.
	GlobalTimeout time.Duration
	// RepairInterval is the gap between two read-repair sweeps.
	RepairInterval time.Duration
}

// Controller enforces initializer timeouts.
type Controller struct {
	client   kubernetes.Interface
	loop     *keyloop.Loop
	settings Settings
	log      logr.Logger

	mu    sync.Mutex
	heads map[string]head // by pod key
	// repairs holds, by pod key, the head initializer a read-repair sweep
	// found past the global timeout: the worker removes that one only, one
	// initializer per sweep as the seed's read repair does per read.
	repairs map[string]string
}

// head is when the controller first saw an initializer at the head of a pod.
type head struct {
	uid   types.UID
	name  string
	since time.Time
}

// New returns a controller acting through client.
func New(client kubernetes.Interface, s Settings, log logr.Logger) *Controller {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = v1alpha1.InitializingLabel }))
	c := &Controller{client: client, settings: s, log: log, heads: map[string]head{}, repairs: map[string]string{}}
	c.loop = keyloop.New("initializers controller", factory, factory.Core().V1().Pods().Informer(),
		time.Second, time.Second, c.sync, func(key string, err error) {
			c.log.Info("sync failed; retrying", "pod", key, "error", err.Error())
		})
	return c
}

// Start runs the informer, the worker and the read-repair sweep until ctx
// ends.
func (c *Controller) Start(ctx context.Context) {
	c.loop.Start(ctx)
	c.loop.Go(func() { c.repairLoop(ctx) })
}

// WaitForSync returns once the informer has synced, or an error when ctx
// ends first.
func (c *Controller) WaitForSync(ctx context.Context) error { return c.loop.WaitForSync(ctx) }

// Wait waits for the controller's goroutines after ctx ended.
func (c *Controller) Wait() { c.loop.Wait() }

// sync brings one pod forward: it notes a new head, acts on a head whose
// time is up, and finishes pods with nothing left to wait for.
func (c *Controller) sync(ctx context.Context, key string) error {
	obj, err := c.loop.Get(key)
	if err != nil {
		return err
	}
	if obj == nil {
		c.forget(key)
		return nil
	}
	pod := obj.(*corev1.Pod)
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded || pod.DeletionTimestamp != nil {
		c.forget(key)
		return c.finish(ctx, pod)
	}
	remaining, err := v1alpha1.Remaining(pod)
	if err != nil {
		c.log.Info("pod not handled", "pod", key, "error", err.Error())
		return nil
	}
	if len(remaining) == 0 {
		c.forget(key)
		return c.finish(ctx, pod)
	}
	h := c.observe(key, pod.UID, remaining[0].Name)
	if age, past := c.pastGlobalTimeout(pod, time.Now()); past && c.takeRepair(key) == remaining[0].Name {
		return c.timeOut(ctx, pod, remaining[0], v1alpha1.ReasonGlobalTimeout, v1alpha1.ReasonGlobalTimeout,
			fmt.Sprintf("had not finished when the pod was %s old (global timeout %s)", age.Truncate(time.Second), c.settings.GlobalTimeout))
	}
	if c.settings.NoTimeouts {
		return nil
	}
	if left := time.Until(h.since.Add(remaining[0].Timeout())); left > 0 {
		c.loop.AddAfter(key, left)
		return nil
	}
	return c.timeOut(ctx, pod, remaining[0], v1alpha1.ReasonTimeout, v1alpha1.ReasonTimeoutIgnored,
		fmt.Sprintf("did not finish within %s of reaching the head of the list", remaining[0].Timeout()))
}

// observe returns when name was first seen at the head of the pod, noting
// now if it was not there before.
func (c *Controller) observe(key string, uid types.UID, name string) head {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.heads[key]
	if !ok || h.uid != uid || h.name != name {
		h = head{uid: uid, name: name, since: time.Now()}
		c.heads[key] = h
	}
	return h
}

func (c *Controller) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.heads, key)
	delete(c.repairs, key)
}

// takeRepair returns (and forgets) the initializer a sweep marked for
// repair on the pod, "" if none.
func (c *Controller) takeRepair(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := c.repairs[key]
	delete(c.repairs, key)
	return name
}
