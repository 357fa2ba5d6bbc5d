package harness

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
)

func TestJournalExcerptKeepsTheCaseCallsInOrder(t *testing.T) {
	start := time.Now()
	call := func(seq int64, at time.Duration, action fakewebhook.Action, answered bool) fakewebhook.Call {
		c := fakewebhook.Call{
			Seq: seq, Path: "/ns/cfg/h", Webhook: "h.ns.admission-conformance.io", Phase: fakewebhook.Validating,
			Operation: "CREATE", Namespace: "ns", Name: "obj",
			Resource:   metav1.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
			ReceivedAt: start.Add(at), FinishedAt: start.Add(at + 3*time.Millisecond), Action: action,
		}
		if answered {
			c.RespondedAt = start.Add(at + 2*time.Millisecond)
			c.Allowed = action == fakewebhook.Allow
		}
		return c
	}
	finished := []fakewebhook.Call{
		call(1, -time.Second, fakewebhook.Allow, true), // an earlier case's call
		call(2, 10*time.Millisecond, fakewebhook.Allow, true),
		call(4, 30*time.Millisecond, fakewebhook.Hang, false),
		call(5, 40*time.Millisecond, fakewebhook.Deny, true),
	}
	inFlight := []fakewebhook.Call{call(3, 20*time.Millisecond, "", false)}

	got := JournalExcerpt(finished, inFlight, start, 10)
	var seqs []int64
	for _, c := range got.Calls {
		seqs = append(seqs, c.Seq)
	}
	if len(seqs) != 4 || seqs[0] != 2 || seqs[1] != 3 || seqs[2] != 4 || seqs[3] != 5 || got.Omitted != 0 {
		t.Fatalf("calls %v (omitted %d), want 2 3 4 5 in receipt order", seqs, got.Omitted)
	}
	first := got.Calls[0]
	if first.Resource != "apps/v1/deployments" || first.ReceivedMs != 10 || first.DurationMs != 2 || !first.Answered || !first.Allowed {
		t.Errorf("first call %+v", first)
	}
	if !got.Calls[1].InFlight || got.Calls[1].Answered {
		t.Errorf("an in-flight call is not marked so: %+v", got.Calls[1])
	}
	if hang := got.Calls[2]; hang.Answered || hang.DurationMs != 3 {
		t.Errorf("an abandoned call lasts until it finished: %+v", hang)
	}

	short := JournalExcerpt(finished, inFlight, start, 2)
	if len(short.Calls) != 2 || short.Calls[0].Seq != 4 || short.Omitted != 2 {
		t.Errorf("a limit of 2 keeps the latest two and counts the rest: %+v", short)
	}
	if empty := JournalExcerpt(nil, nil, start, 10); empty.Calls == nil || len(empty.Calls) != 0 {
		t.Errorf("no call gives an empty, non-nil list (it says no webhook was called): %+v", empty)
	}
}
