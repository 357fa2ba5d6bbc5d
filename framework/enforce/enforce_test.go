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

// A "not yet" sent before the bound and answered after it (a stalled
// apiserver) is not a verdict: the next probe, sent after the bound, is.
func TestUntilJudgesALateAnswerByTheNextProbe(t *testing.T) {
	for _, tc := range []struct {
		name         string
		secondSeesIt bool
		wantErr      bool
	}{
		{"enforced by then", true, false},
		{"still not enforced", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			probe := func(context.Context, *rest.Config) (bool, error) {
				if calls.Add(1) == 1 {
					time.Sleep(40 * time.Millisecond) // the stall: answered past the bound
					return false, nil
				}
				return tc.secondSeesIt, nil
			}
			d, err := Until(context.Background(), time.Now(), &rest.Config{}, 20*time.Millisecond, time.Hour, probe)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if calls.Load() != 2 {
				t.Fatalf("%d probes, want 2: one answered late, one sent after the bound", calls.Load())
			}
			if d < 40*time.Millisecond {
				t.Fatalf("d = %s, shorter than the stalled probe", d)
			}
			if tc.wantErr && !strings.Contains(err.Error(), "the last sent") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestUntilSeenSaysHowLongTheDecidingProbeTook(t *testing.T) {
	var calls atomic.Int32
	probe := func(context.Context, *rest.Config) (bool, error) {
		if calls.Add(1) < 3 {
			return false, nil
		}
		time.Sleep(30 * time.Millisecond)
		return true, nil
	}
	seen, err := UntilSeen(context.Background(), time.Now(), &rest.Config{}, time.Second, time.Millisecond, probe)
	if err != nil {
		t.Fatal(err)
	}
	if seen.Answer < 30*time.Millisecond || seen.After < seen.Answer {
		t.Fatalf("seen = %+v: the third probe took 30ms", seen)
	}
}
