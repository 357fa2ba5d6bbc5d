// Package enforce answers "is this configuration enforced yet?" the only way
// that can be answered from outside an apiserver: by sending marker requests
// until one gets the enforced answer. Upstream has no API that says when a
// webhook or policy change is enforced (kubernetes issue 54712), so the
// harness measures it.
package enforce

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/rest"
)

// Probe sends one marker request through config and reports whether the
// change under test is enforced. An error ends the wait.
type Probe func(ctx context.Context, config *rest.Config) (enforced bool, err error)

// Until probes until the probe reports enforced or bound passes, and returns
// the time from start to the first enforced answer, measured with the
// monotonic clock. start is usually the instant the change was accepted by
// the API. If bound passes first, the error says so and the duration is how
// long it waited. An enforced answer ends the wait even when it comes after
// bound (its probe was sent before): a caller holding a promise to a bound
// asserts the returned duration itself.
//
// Only a probe sent after bound can show that the change was not enforced
// by then: the apiserver evaluates a probe somewhere between its sending and
// its answer, so a "not yet" to a probe sent before bound that is answered
// after it (an apiserver that stalled for seconds on a busy machine) proves
// nothing about bound. Until then probes once more, and that probe decides.
func Until(ctx context.Context, start time.Time, config *rest.Config, bound, interval time.Duration, probe Probe) (time.Duration, error) {
	seen, err := UntilSeen(ctx, start, config, bound, interval, probe)
	return seen.After, err
}

// Seen is what Until observed: After is the time from start to the enforced
// answer (or to the last answer, if none was), Answer how long the apiserver
// took to answer that probe. A long Answer is an apiserver that stalled: the
// change may have been enforced any time during it, so a reader of a late
// After can tell a stall from a late change.
type Seen struct {
	After, Answer time.Duration
}

// UntilSeen is Until, with how long the deciding probe took.
func UntilSeen(ctx context.Context, start time.Time, config *rest.Config, bound, interval time.Duration, probe Probe) (Seen, error) {
	deadline := start.Add(bound)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for attempt := 1; ; attempt++ {
		sent := time.Now()
		enforced, err := probe(ctx, config)
		now := time.Now()
		seen := Seen{After: now.Sub(start), Answer: now.Sub(sent)}
		elapsed := seen.After
		if err != nil {
			return seen, fmt.Errorf("marker request %d failed: %w", attempt, err)
		}
		if enforced {
			return seen, nil
		}
		if sent.After(deadline) {
			return seen, fmt.Errorf("not enforced after %s (%d marker requests, the last sent %s after the change, bound %s)",
				elapsed.Round(time.Millisecond), attempt, sent.Sub(start).Round(time.Millisecond), bound)
		}
		if time.Now().After(deadline) {
			// The answer came after bound: probe again at once, since
			// waiting for the tick would only delay the verdict.
			continue
		}
		select {
		case <-ctx.Done():
			return seen, ctx.Err()
		case <-ticker.C:
		}
	}
}

// OnEveryReplica runs Until against each replica at once and returns the
// per-replica latencies in replica order. Every replica is waited for even if
// one fails, so the report can show all of them; the first error is returned.
func OnEveryReplica(ctx context.Context, start time.Time, replicas []*rest.Config, bound, interval time.Duration, probe Probe) ([]time.Duration, error) {
	seen, err := OnEveryReplicaSeen(ctx, start, replicas, bound, interval, probe)
	latencies := make([]time.Duration, len(seen))
	for i, s := range seen {
		latencies[i] = s.After
	}
	return latencies, err
}

// OnEveryReplicaSeen is OnEveryReplica, with how long each replica took to
// answer its deciding probe.
func OnEveryReplicaSeen(ctx context.Context, start time.Time, replicas []*rest.Config, bound, interval time.Duration, probe Probe) ([]Seen, error) {
	seen := make([]Seen, len(replicas))
	errs := make([]error, len(replicas))
	done := make(chan int, len(replicas))
	for i, r := range replicas {
		go func() {
			seen[i], errs[i] = UntilSeen(ctx, start, r, bound, interval, probe)
			done <- i
		}()
	}
	for range replicas {
		<-done
	}
	for i, err := range errs {
		if err != nil {
			return seen, fmt.Errorf("apiserver replica %d: %w", i, err)
		}
	}
	return seen, nil
}
