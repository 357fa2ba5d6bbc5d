package enforce

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

func TestUntilReturnsOnFirstEnforcedAnswer(t *testing.T) {
	var calls atomic.Int32
	probe := func(context.Context, *rest.Config) (bool, error) { return calls.Add(1) >= 3, nil }
	d, err := Until(context.Background(), time.Now(), &rest.Config{}, time.Second, time.Millisecond, probe)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || d <= 0 || d > time.Second {
		t.Fatalf("calls=%d d=%s", calls.Load(), d)
	}
}

func TestUntilFailsAfterBound(t *testing.T) {
	never := func(context.Context, *rest.Config) (bool, error) { return false, nil }
	d, err := Until(context.Background(), time.Now(), &rest.Config{}, 30*time.Millisecond, 5*time.Millisecond, never)
	if err == nil || !strings.Contains(err.Error(), "not enforced") {
		t.Fatalf("err = %v", err)
	}
	if d < 30*time.Millisecond {
		t.Fatalf("gave up after %s, before the bound", d)
	}
}

func TestUntilStopsOnProbeError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Until(context.Background(), time.Now(), &rest.Config{}, time.Second, time.Millisecond,
		func(context.Context, *rest.Config) (bool, error) { return false, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestOnEveryReplicaReportsEachReplica(t *testing.T) {
	replicas := []*rest.Config{{Host: "a"}, {Host: "b"}}
	probe := func(_ context.Context, c *rest.Config) (bool, error) { return c.Host == "a", nil }
	lat, err := OnEveryReplica(context.Background(), time.Now(), replicas, 20*time.Millisecond, time.Millisecond, probe)
	if err == nil || !strings.Contains(err.Error(), "replica 1") {
		t.Fatalf("err = %v", err)
	}
	if len(lat) != 2 || lat[0] >= 20*time.Millisecond || lat[1] < 20*time.Millisecond {
		t.Fatalf("latencies = %v", lat)
	}
}
