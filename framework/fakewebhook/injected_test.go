package fakewebhook

import (
	"encoding/json"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// TestInjectedErrorsSpareDenials: with WithInjectedErrors, hooks that
// would allow answer HTTP 500 and record the fault, while denials (the
// harness's readiness markers) still answer as they should.
func TestInjectedErrorsSpareDenials(t *testing.T) {
	t.Parallel()
	h := newHarness(t, WithInjectedErrors("some-fault"))
	h.register("/allow", Validating, Behaviour{Action: Allow})
	h.register("/deny", Validating, Behaviour{Action: Deny})

	got, err := h.post(h.client, "/allow", reviewBody(t, reviewV1, typesUID("injected-allow")))
	if err != nil {
		t.Fatal(err)
	}
	if got.status != http.StatusInternalServerError {
		t.Errorf("allow: status %d, want 500", got.status)
	}
	if c := h.callFor(typesUID("injected-allow")); c.Err != "injected fault: some-fault" {
		t.Errorf("allow: call error %q, want the injected fault", c.Err)
	}

	got, err = h.post(h.client, "/deny", reviewBody(t, reviewV1, typesUID("injected-deny")))
	if err != nil {
		t.Fatal(err)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(got.body, &review); err != nil || review.Response == nil || review.Response.Allowed {
		t.Errorf("deny: status %d, answer %q (%v), want a denial", got.status, got.body, err)
	}
}
