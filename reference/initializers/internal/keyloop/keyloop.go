// Package keyloop is the loop both reference controllers run: one
// informer's events queue the keys of the objects they touch, one worker
// syncs each key, and a key whose sync failed is retried after its rate
// limiter's delay.
package keyloop

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Sync brings the object of key (namespace/name, or name) to where it
// should be; an error retries the key later.
type Sync func(ctx context.Context, key string) error

// Retried is told of every sync that failed and will be retried.
type Retried func(key string, err error)

// Loop is one informer, its queue and its worker.
type Loop struct {
	name     string
	factory  informers.SharedInformerFactory
	informer cache.SharedIndexInformer
	queue    workqueue.TypedRateLimitingInterface[string]
	sync     Sync
	retried  Retried
	running  sync.WaitGroup // the worker and the goroutines of Go
}

// New returns a loop, not yet started, over informer (made by factory),
// that calls sync for every key its adds, updates and deletes queue. A
// failed key is retried after between minRetry and maxRetry, doubling. name
// says which loop an error comes from.
func New(name string, factory informers.SharedInformerFactory, informer cache.SharedIndexInformer,
	minRetry, maxRetry time.Duration, sync Sync, retried Retried) *Loop {
	l := &Loop{
		name: name, factory: factory, informer: informer, sync: sync, retried: retried,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](minRetry, maxRetry)),
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			l.queue.Add(key)
		}
	}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: enqueue,
	})
	return l
}

// Start runs the informer and the worker until ctx ends.
func (l *Loop) Start(ctx context.Context) {
	l.factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		l.queue.ShutDown()
	}()
	l.Go(func() { l.work(ctx) })
}

// Go runs f in a goroutine that Wait waits for.
func (l *Loop) Go(f func()) {
	l.running.Add(1)
	go func() {
		defer l.running.Done()
		f()
	}()
}

// WaitForSync returns once the informer has synced, or an error when ctx
// ends first.
func (l *Loop) WaitForSync(ctx context.Context) error {
	if !cache.WaitForCacheSync(ctx.Done(), l.informer.HasSynced) {
		return fmt.Errorf("%s: informer did not sync: %w", l.name, ctx.Err())
	}
	return nil
}

// Wait waits, after ctx ended, for the informer's goroutines, the worker
// (which finishes the key in hand) and the goroutines of Go.
func (l *Loop) Wait() {
	l.factory.Shutdown()
	l.running.Wait()
}

// Get returns the informer's copy of the object of key, nil if there is
// none.
func (l *Loop) Get(key string) (any, error) {
	obj, exists, err := l.informer.GetStore().GetByKey(key)
	if err != nil || !exists {
		return nil, err
	}
	return obj, nil
}

// AddAfter syncs key again after d.
func (l *Loop) AddAfter(key string, d time.Duration) { l.queue.AddAfter(key, d) }

func (l *Loop) work(ctx context.Context) {
	for {
		key, quit := l.queue.Get()
		if quit {
			return
		}
		if err := l.sync(ctx, key); err != nil && ctx.Err() == nil {
			l.retried(key, err)
			l.queue.AddRateLimited(key)
		} else {
			l.queue.Forget(key)
		}
		l.queue.Done(key)
	}
}
