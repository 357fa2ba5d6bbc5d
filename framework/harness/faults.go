package harness

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// needsNodes reports whether a spec's cases place pods on nodes.
func needsNodes(s spec.Spec) bool {
	return s.Suite == "nodeadmit" || slices.Contains(s.Features, features.NodeAdmission) ||
		slices.Contains(s.Features, features.NodeAdmissionPlugins)
}

// DeadNode returns an error naming node if the cluster saw its kubelet die
// during the run, and nil otherwise (or when the cluster cannot tell).
func (e *Env) DeadNode(node string) error {
	f, ok := e.Cluster.(cluster.Faults)
	if !ok {
		return nil
	}
	if err := f.DeadNodes()[node]; err != nil {
		return nodeDied(node, err)
	}
	return nil
}

func nodeDied(node string, err error) error {
	return fmt.Errorf("the kubelet of node %s died during the run (%v; its last output is in the component log), so the node decides nothing any more", node, err)
}

// deadNodes fails a case that needs the cluster's nodes once one of them
// has died, at once and naming it.
func (e *Env) deadNodes(s spec.Spec) error {
	f, ok := e.Cluster.(cluster.Faults)
	if !ok || !needsNodes(s) {
		return nil
	}
	dead := f.DeadNodes()
	names := make([]string, 0, len(dead))
	for n := range dead {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("this case needs the cluster's nodes: %w", nodeDied(names[0], dead[names[0]]))
}

// WatchNode returns a context that ends, as well as when ctx does, once
// the kubelet of node dies; stop releases it. Waits for a node's decision
// use it so that a dead node fails them at once.
func (e *Env) WatchNode(ctx context.Context, node string) (_ context.Context, stop func()) {
	if _, ok := e.Cluster.(cluster.Faults); !ok {
		return context.WithCancel(ctx)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	poll := e.Bounds.PollInterval.Duration
	if poll <= 0 {
		poll = 20 * time.Millisecond
	}
	go func() {
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := e.DeadNode(node); err != nil {
					cancel(err)
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(nil) }
}
