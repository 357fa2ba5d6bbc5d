package fakewebhook

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func typesUID(s string) types.UID { return types.UID(s) }

// waitSeq waits for the finished call with sequence number seq.
func waitSeq(j *Journal, seq int64) (Call, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c, err := j.WaitFor(ctx, func(c Call) bool { return c.Seq == seq })
	if err != nil {
		return Call{}, fmt.Errorf("no call %d in the journal: %w", seq, err)
	}
	return c, nil
}

func TestWaitForReturnsOnALaterCall(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.register("/w", Validating, Behaviour{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	found := make(chan Call, 1)
	failed := make(chan error, 1)
	go func() {
		c, err := h.srv.Journal().WaitFor(ctx, func(c Call) bool { return c.UID == "second" })
		if err != nil {
			failed <- err
			return
		}
		found <- c
	}()
	for _, uid := range []types.UID{"first", "second"} {
		if _, err := h.post(h.client, "/w", reviewBody(t, reviewV1, uid)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case c := <-found:
		if c.UID != "second" || c.Seq != 2 {
			t.Errorf("WaitFor returned %s seq %d", c.UID, c.Seq)
		}
	case err := <-failed:
		t.Fatalf("WaitFor: %v", err)
	}
}

func TestWaitForRespectsContext(t *testing.T) {
	t.Parallel()
	j := newJournal()
	j.finish(Call{Seq: 1, UID: "other"})
	cases := []struct {
		name string
		wait func(context.Context, func(Call) bool) (Call, error)
	}{
		{"WaitFor", j.WaitFor},
		{"WaitForReceived", j.WaitForReceived},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := tc.wait(ctx, func(c Call) bool { return c.UID == "never" })
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want deadline exceeded", err)
			}
			if elapsed := time.Since(start); elapsed > time.Second {
				t.Errorf("returned after %v", elapsed)
			}
		})
	}
}

func TestJournalOrdersAndIsolatesCalls(t *testing.T) {
	t.Parallel()
	j := newJournal()
	j.begin(Call{Seq: 1, Path: "/a", UID: "u1"})
	j.begin(Call{Seq: 2, Path: "/b", UID: "u2"})
	j.begin(Call{Seq: 3, Path: "/a", UID: "u3"})
	// Finish out of receipt order, as a hang that outlives later calls does.
	j.finish(Call{Seq: 3, Path: "/a", UID: "u3"})
	j.finish(Call{Seq: 1, Path: "/a", UID: "u1", Object: []byte(`{"a":1}`)})

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if c, err := j.WaitForReceived(ctx, func(c Call) bool { return c.Path == "/b" }); err != nil || c.UID != "u2" {
		t.Errorf("WaitForReceived = %v, %v; want the in-flight u2", c.UID, err)
	}
	j.finish(Call{Seq: 2, Path: "/b", UID: "u2"})

	cases := []struct {
		name string
		got  []Call
		want []types.UID
	}{
		{"Calls", j.Calls(), []types.UID{"u1", "u2", "u3"}},
		{"ForPath", j.ForPath("/a"), []types.UID{"u1", "u3"}},
		{"ForUID", j.ForUID("u2"), []types.UID{"u2"}},
		{"Where", j.Where(func(c Call) bool { return c.Seq > 1 }), []types.UID{"u2", "u3"}},
		{"InFlight", j.InFlight(), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []types.UID
			for _, c := range tc.got {
				got = append(got, c.UID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if j.Len() != 3 {
		t.Errorf("Len = %d, want 3", j.Len())
	}
	mine := j.ForUID("u1")
	mine[0].Object[0] = 'X'
	if string(j.ForUID("u1")[0].Object) != `{"a":1}` {
		t.Error("changing a returned call changed the journal")
	}
}
