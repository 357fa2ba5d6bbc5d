package ordering

import (
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
)

// The specs decide "mutating before validating" from these helpers; these
// tests show the decision can come out either way.

func TestCarriesNonceLooksInObjectThenOldObject(t *testing.T) {
	object := fakewebhook.Call{Object: []byte(`{"metadata":{"annotations":{"admission-conformance.io/request":"n1"}}}`)}
	deletion := fakewebhook.Call{Object: []byte(`null`), OldObject: []byte(`{"metadata":{"annotations":{"admission-conformance.io/request":"n2"}}}`)}
	connect := fakewebhook.Call{Object: []byte(`{"kind":"PodExecOptions","command":["true"]}`)}
	cases := []struct {
		call  fakewebhook.Call
		nonce string
		want  bool
	}{
		{object, "n1", true}, {object, "n2", false},
		{deletion, "n2", true}, {deletion, "n1", false},
		{connect, "n1", false}, {fakewebhook.Call{}, "n1", false},
	}
	for i, c := range cases {
		if got := carriesNonce(c.call, c.nonce); got != c.want {
			t.Errorf("case %d: carriesNonce(%q) = %t, want %t", i, c.nonce, got, c.want)
		}
	}
}

func TestLastAnswerAndFirstReceiptOrderPhases(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	call := func(path string, phase fakewebhook.Phase, received, responded int) fakewebhook.Call {
		return fakewebhook.Call{Path: path, Phase: phase, ReceivedAt: at(received), RespondedAt: at(responded)}
	}
	inOrder := calls{
		call("m1", fakewebhook.Mutating, 0, 1), call("m2", fakewebhook.Mutating, 2, 3),
		call("v1", fakewebhook.Validating, 4, 6), call("v2", fakewebhook.Validating, 5, 7),
	}
	// m2 answers after v1 was called: a chain that validates before the
	// mutators are done.
	interleaved := calls{
		call("m1", fakewebhook.Mutating, 0, 1), call("v1", fakewebhook.Validating, 2, 6),
		call("m2", fakewebhook.Mutating, 3, 4), call("v2", fakewebhook.Validating, 5, 7),
	}
	for name, tc := range map[string]struct {
		cs   calls
		want bool
	}{"in order": {inOrder, true}, "interleaved": {interleaved, false}} {
		last, ok := tc.cs.inPhase(fakewebhook.Mutating).lastAnswer()
		first, _ := tc.cs.inPhase(fakewebhook.Validating).firstReceipt()
		if !ok {
			t.Fatalf("%s: no last mutating answer", name)
		}
		if got := last.RespondedAt.Before(first.ReceivedAt); got != tc.want {
			t.Errorf("%s: mutating finished before validating started = %t, want %t (last %s, first %s)", name, got, tc.want, last.Path, first.Path)
		}
	}
	unanswered := calls{{Path: "m1", Phase: fakewebhook.Mutating, ReceivedAt: at(0)}}
	if _, ok := unanswered.lastAnswer(); ok {
		t.Error("a mutating call that was never answered must not count as answered")
	}
	if got := inOrder.onPath("v2"); len(got) != 1 || got[0].Path != "v2" {
		t.Errorf("onPath(v2) = %+v", got)
	}
}
