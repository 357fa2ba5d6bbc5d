package ordering

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// requestAnnotation carries a value unique to one user request, so that the
// webhook calls that request caused can be told apart from every other call.
// The AdmissionReview uid cannot do this: kube-apiserver mints a new uid for
// every webhook call (k8s.io/apiserver/pkg/admission/plugin/webhook/request),
// and forwards no audit ID to webhooks. The annotation is in the object of a
// CREATE, UPDATE or PATCH and in the oldObject of a DELETE.
const requestAnnotation = "admission-conformance.io/request"

// newNonce returns a value for requestAnnotation.
func newNonce() string { return string(uuid.NewUUID()) }

// calls are the webhook calls one request caused, in the order the fake
// server received them.
type calls []fakewebhook.Call

// onPath keeps the calls received on path.
func (cs calls) onPath(path string) calls {
	var out calls
	for _, c := range cs {
		if c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

// inPhase keeps the calls of mutating or of validating endpoints.
func (cs calls) inPhase(p fakewebhook.Phase) calls {
	var out calls
	for _, c := range cs {
		if c.Phase == p {
			out = append(out, c)
		}
	}
	return out
}

// lastAnswer is the latest instant a call was answered, and the call; ok is
// false if a call was never answered or there are none.
func (cs calls) lastAnswer() (fakewebhook.Call, bool) {
	var last fakewebhook.Call
	for _, c := range cs {
		if !c.Answered() {
			return c, false
		}
		if last.RespondedAt.IsZero() || c.RespondedAt.After(last.RespondedAt) {
			last = c
		}
	}
	return last, len(cs) > 0
}

// firstReceipt is the call received first.
func (cs calls) firstReceipt() (fakewebhook.Call, bool) {
	if len(cs) == 0 {
		return fakewebhook.Call{}, false
	}
	first := cs[0]
	for _, c := range cs[1:] {
		if c.ReceivedAt.Before(first.ReceivedAt) {
			first = c
		}
	}
	return first, true
}

// requestCalls returns the finished calls on the spec's hooks (paths) that
// belong to the request carrying nonce. Call it after the request returned:
// by then the apiserver has sent every call the request caused, so the only
// wait is for the fake server to finish recording the last answers.
func requestCalls(ctx context.Context, f *harness.Framework, nonce string, paths ...string) (calls, error) {
	belongs := func(c fakewebhook.Call) bool { return onAnyPath(c, paths) && carriesNonce(c, nonce) }
	return settledCalls(ctx, f, belongs)
}

// settledCalls waits until no call match accepts is still being handled,
// then returns the finished ones.
func settledCalls(ctx context.Context, f *harness.Framework, match func(fakewebhook.Call) bool) (calls, error) {
	journal := f.Env.Webhooks.Journal()
	deadline := time.Now().Add(f.Bounds.WebhookReady.Duration)
	ticker := time.NewTicker(f.Bounds.PollInterval.Duration)
	defer ticker.Stop()
	for {
		inFlight := 0
		for _, c := range journal.InFlight() {
			if match(c) {
				inFlight++
			}
		}
		if inFlight == 0 {
			return journal.Where(match), nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%d webhook call(s) still unanswered after %s", inFlight, f.Bounds.WebhookReady.Duration)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ticker.C:
		}
	}
}

func onAnyPath(c fakewebhook.Call, paths []string) bool {
	for _, p := range paths {
		if c.Path == p {
			return true
		}
	}
	return false
}

// carriesNonce reports whether the call's object, or for a DELETE its
// oldObject, is annotated with nonce.
func carriesNonce(c fakewebhook.Call, nonce string) bool {
	raw := c.Object
	if len(raw) == 0 || string(raw) == "null" {
		raw = c.OldObject
	}
	var obj struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil {
		return false
	}
	return obj.Metadata.Annotations[requestAnnotation] == nonce
}

// paths lists the journal paths of a registration's hooks, in the order of
// names.
func paths(r *harness.Registration, names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = r.Hooks[n].Path
	}
	return out
}
