package fakewebhook

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Journal records every call a Server received. A call is recorded when its
// handler returns, so abandoned calls are recorded too; calls still being
// handled are visible through InFlight and WaitForReceived.
type Journal struct {
	mu       sync.Mutex
	calls    []Call         // finished calls, kept in Seq order
	inFlight map[int64]Call // received but not finished, by Seq
	changed  chan struct{}  // closed and replaced on every change: a broadcast
}

func newJournal() *Journal {
	return &Journal{inFlight: map[int64]Call{}, changed: make(chan struct{})}
}

// begin makes a call visible as in flight.
func (j *Journal) begin(c Call) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.inFlight[c.Seq] = c.clone()
	j.broadcastLocked()
}

// finish records a finished call.
func (j *Journal) finish(c Call) {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.inFlight, c.Seq)
	// Calls finish out of receipt order (a hang outlives later calls), so
	// insert at the Seq position instead of appending.
	i, _ := slices.BinarySearchFunc(j.calls, c.Seq, func(x Call, seq int64) int {
		return cmp.Compare(x.Seq, seq)
	})
	j.calls = slices.Insert(j.calls, i, c.clone())
	j.broadcastLocked()
}

func (j *Journal) broadcastLocked() {
	close(j.changed)
	j.changed = make(chan struct{})
}

// Len is the number of finished calls.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.calls)
}

// Calls returns a copy of all finished calls in Seq order.
func (j *Journal) Calls() []Call {
	return j.Where(nil)
}

// Where returns copies of the finished calls match accepts, in Seq order.
// A nil match accepts every call.
func (j *Journal) Where(match func(Call) bool) []Call {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []Call
	for _, c := range j.calls {
		if match == nil || match(c) {
			out = append(out, c.clone())
		}
	}
	return out
}

// ForUID returns the finished calls for one admission request UID; more
// than one means the apiserver called several webhooks (or reinvoked one).
func (j *Journal) ForUID(uid types.UID) []Call {
	return j.Where(func(c Call) bool { return c.UID == uid })
}

// ForPath returns the finished calls received on path.
func (j *Journal) ForPath(path string) []Call {
	return j.Where(func(c Call) bool { return c.Path == path })
}

// InFlight returns copies of the calls being handled right now (e.g.
// hanging) in Seq order. Their response fields are not filled in yet.
func (j *Journal) InFlight() []Call {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Call, 0, len(j.inFlight))
	for _, c := range j.inFlight {
		out = append(out, c.clone())
	}
	slices.SortFunc(out, func(a, b Call) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// WaitFor returns the first finished call, in Seq order, that match accepts,
// waiting for one to be recorded if there is none yet. It returns ctx's
// error if ctx ends first.
func (j *Journal) WaitFor(ctx context.Context, match func(Call) bool) (Call, error) {
	return j.waitUntil(ctx, func() (Call, bool) {
		for _, c := range j.calls {
			if match(c) {
				return c, true
			}
		}
		return Call{}, false
	})
}

// WaitForReceived is WaitFor for calls that have been received, finished or
// not: it lets a test know the apiserver reached a webhook that hangs.
func (j *Journal) WaitForReceived(ctx context.Context, match func(Call) bool) (Call, error) {
	return j.waitUntil(ctx, func() (Call, bool) {
		var found Call
		ok := false
		consider := func(c Call) {
			if match(c) && (!ok || c.Seq < found.Seq) {
				found, ok = c, true
			}
		}
		for _, c := range j.calls {
			consider(c)
		}
		for _, c := range j.inFlight {
			consider(c)
		}
		return found, ok
	})
}

// waitUntil runs find under the lock after every change until it finds
// something, sleeping on the broadcast channel in between.
func (j *Journal) waitUntil(ctx context.Context, find func() (Call, bool)) (Call, error) {
	for {
		j.mu.Lock()
		c, ok := find()
		changed := j.changed
		j.mu.Unlock()
		if ok {
			return c.clone(), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Call{}, ctx.Err()
		}
	}
}
