package kubeconfig

import "testing"

// TestNeededAccessHoldsTheSubresourcesSpecsWrite: an in-cluster run's
// service account holds exactly this list, so a missing entry fails a spec
// there (found on kind: ordering/MutatingBeforeValidating updates a
// Service's status).
func TestNeededAccessHoldsTheSubresourcesSpecsWrite(t *testing.T) {
	have := map[string]bool{}
	for _, a := range NeededAccess(false) {
		have[a.String()] = true
	}
	for _, want := range []string{
		"update services/status",         // suites/ordering/mutating_before_validating.go
		"update pods/status",             // suites/webhooks/matching/resources.go
		"create pods/binding",            // suites/initializers/gated_binding_conflict.go
		"update deployments/status.apps", // suites/webhooks/review/subresources.go
		"update deployments/scale.apps",
		"create pods/exec", // suites/webhooks/review/request.go, suites/ordering/connect_reaches_admission.go
	} {
		if !have[want] {
			t.Errorf("the preflight does not check %q, which a spec does", want)
		}
	}
	if have["create pods/portforward"] {
		t.Error("the relay's port-forward is needed without the relay")
	}
}
