package fakewebhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestHangIsRecordedWhenClientGivesUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.register("/hang", Validating, Behaviour{Action: Hang})
	h.register("/allow", Validating, Behaviour{})
	const clientTimeout = 300 * time.Millisecond

	hangDone := make(chan error, 1)
	go func() {
		_, err := h.post(h.newClient(clientTimeout), "/hang", reviewBody(t, reviewV1, "hang"))
		hangDone <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := h.srv.Journal().WaitForReceived(ctx, func(c Call) bool { return c.UID == "hang" }); err != nil {
		t.Fatalf("hanging call never arrived: %v", err)
	}
	if n := len(h.srv.Journal().InFlight()); n != 1 {
		t.Errorf("in flight = %d calls, want 1", n)
	}
	// A later call finishes before the hang; the journal must still list
	// calls in receipt order.
	if _, err := h.post(h.client, "/allow", reviewBody(t, reviewV1, "later")); err != nil {
		t.Fatalf("post: %v", err)
	}
	if err := <-hangDone; err == nil {
		t.Fatal("hanging request got an answer")
	}

	c := h.callFor("hang")
	if c.Answered() || c.Responded != 0 || c.Allowed || c.Action != Hang {
		t.Errorf("hang recorded as answered: %+v", c)
	}
	if c.Err != "client went away while hanging" {
		t.Errorf("err = %q", c.Err)
	}
	if elapsed := c.Finished - c.Received; elapsed < clientTimeout-50*time.Millisecond || elapsed > clientTimeout+time.Second {
		t.Errorf("hang lasted %v, want about the client timeout %v", elapsed, clientTimeout)
	}
	h.callFor("later")
	var uids []types.UID
	for _, c := range h.srv.Journal().Calls() {
		uids = append(uids, c.UID)
	}
	if len(uids) != 2 || uids[0] != "hang" || uids[1] != "later" {
		t.Errorf("journal order = %v, want [hang later]", uids)
	}
}

func TestDelayIsWaitedBeforeAnswering(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const delay = 200 * time.Millisecond
	cases := []struct {
		name      string
		behaviour Behaviour
		allowed   bool
	}{
		{"allow", Behaviour{Delay: delay}, true},
		{"deny", Behaviour{Action: Deny, Delay: delay}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.register("/delay-"+tc.name, Mutating, tc.behaviour)
			uid := types.UID("delay-" + tc.name)
			start := time.Now()
			got, err := h.post(h.client, "/delay-"+tc.name, reviewBody(t, reviewV1, uid))
			if err != nil || got.status != 200 {
				t.Fatalf("post: %v %+v", err, got)
			}
			if elapsed := time.Since(start); elapsed < delay {
				t.Errorf("answered after %v, before the %v delay", elapsed, delay)
			}
			c := h.callFor(uid)
			if waited := c.Responded - c.Received; waited < delay {
				t.Errorf("journal says the answer came after %v, before the %v delay", waited, delay)
			}
			if c.Allowed != tc.allowed {
				t.Errorf("allowed = %v, want %v", c.Allowed, tc.allowed)
			}
		})
	}
}

func TestCloseConnectionSendsNoResponse(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.register("/close", Validating, Behaviour{Action: CloseConnection})
	_, err := h.post(h.client, "/close", reviewBody(t, reviewV1, "close"))
	if err == nil || !(errors.Is(err, io.EOF) || strings.Contains(err.Error(), "EOF")) {
		t.Fatalf("client error = %v, want EOF", err)
	}
	c := h.callFor("close")
	if c.Answered() || c.Allowed || c.Action != CloseConnection || c.Err != "" {
		t.Errorf("call = %+v", c)
	}
}

// TestCloseReleasesWaitingHandlers checks that Close neither waits for
// hangs and delays to end by themselves nor leaves their goroutines behind.
func TestCloseReleasesWaitingHandlers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		behaviour Behaviour
		wantErr   string
	}{
		{"hang", Behaviour{Action: Hang}, "server closed while hanging"},
		{"delay", Behaviour{Delay: time.Hour}, "server closed during delay"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.register("/wait", Mutating, tc.behaviour)
			clientDone := make(chan error, 1)
			go func() {
				_, err := h.post(h.client, "/wait", reviewBody(t, reviewV1beta1, "waiting"))
				clientDone <- err
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := h.srv.Journal().WaitForReceived(ctx, func(c Call) bool { return c.UID == "waiting" }); err != nil {
				t.Fatalf("call never arrived: %v", err)
			}

			start := time.Now()
			if err := h.srv.Close(ctx); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if elapsed := time.Since(start); elapsed > time.Second {
				t.Errorf("Close took %v", elapsed)
			}
			select {
			case err := <-clientDone:
				if err == nil {
					t.Error("client got an answer")
				}
			case <-time.After(2 * time.Second):
				t.Fatal("client still waiting after Close")
			}
			// Close waited for the handler, so its entry is already there.
			calls := h.srv.Journal().ForUID("waiting")
			if len(calls) != 1 || calls[0].Err != tc.wantErr || calls[0].Answered() {
				t.Errorf("journal after Close = %+v", calls)
			}
			if err := h.srv.Close(ctx); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if stacks := handlerGoroutines(h.srv); stacks != "" {
				t.Errorf("handler goroutines left after Close:\n%s", stacks)
			}
		})
	}
}

// handlerGoroutines returns the stacks of goroutines still inside srv's
// handler, allowing a returning handler a moment to unwind. Stack traces
// print the receiver pointer, which keeps parallel tests' servers apart.
func handlerGoroutines(srv *Server) string {
	frame := fmt.Sprintf("fakewebhook.(*Server).handle(%p", srv)
	var leaked []string
	for deadline := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		leaked = leaked[:0]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, frame) {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
	}
}
