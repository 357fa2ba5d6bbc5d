// Package poller is the reference implementation's configuration reader:
// seed 002's "consistent read (a LIST) of the InitializerConfiguration every
// 1s". The webhook decides from the latest successful read and blocks when
// it is too old; nothing is cached from watches, so a change applies to
// creations at most one interval (plus one LIST) later.
package poller

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// Poller lists the configurations every interval.
type Poller struct {
	client   dynamic.NamespaceableResourceInterface
	interval time.Duration
	log      logr.Logger

	mu       sync.RWMutex
	configs  []v1alpha1.InitializerConfiguration
	readAt   time.Time
	ok       bool
	failures int
	lastErr  error
	first    chan struct{}
}

// New returns a poller reading through client (whose identity must be
// allowed to list the configurations).
func New(client dynamic.Interface, interval time.Duration, log logr.Logger) *Poller {
	return &Poller{client: client.Resource(v1alpha1.GroupVersionResource), interval: interval, log: log, first: make(chan struct{})}
}

// Run polls until ctx ends. The first read happens at once.
func (p *Poller) Run(ctx context.Context) {
	ticker := time.NewTicker(p.interval)
	defer ticker.Stop()
	for {
		p.read(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// read does one consistent LIST: ResourceVersion "" is served from etcd by
// a quorum read, never from the apiserver's watch cache.
func (p *Poller) read(ctx context.Context) {
	readCtx, cancel := context.WithTimeout(ctx, p.interval)
	defer cancel()
	sent := time.Now()
	list, err := p.client.List(readCtx, metav1.ListOptions{ResourceVersion: ""})
	var configs []v1alpha1.InitializerConfiguration
	if err == nil {
		configs, err = decode(list.UnstructuredContent())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.failures++
		p.lastErr = err
		if ctx.Err() == nil {
			p.log.V(1).Info("configuration read failed", "consecutiveFailures", p.failures, "error", err.Error())
		}
		return
	}
	p.configs, p.failures, p.lastErr = configs, 0, nil
	if !p.ok {
		close(p.first)
	}
	// The read counts from when it was sent (what it returned was current
	// no earlier), so the block window is never stretched by a slow LIST.
	p.readAt, p.ok = sent, true
}

func decode(content map[string]any) ([]v1alpha1.InitializerConfiguration, error) {
	var list v1alpha1.InitializerConfigurationList
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, &list); err != nil {
		return nil, fmt.Errorf("decode initializer configurations: %w", err)
	}
	return list.Items, nil
}

// Latest implements webhook.Source.
func (p *Poller) Latest() ([]v1alpha1.InitializerConfiguration, time.Time, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.configs, p.readAt, p.ok
}

// WaitFirstRead returns once a read has succeeded, or the last read's error
// when ctx ends first.
func (p *Poller) WaitFirstRead(ctx context.Context) error {
	select {
	case <-p.first:
		return nil
	case <-ctx.Done():
		p.mu.RLock()
		defer p.mu.RUnlock()
		if p.lastErr != nil {
			return fmt.Errorf("no read of the initializer configurations succeeded: %w", p.lastErr)
		}
		return ctx.Err()
	}
}
