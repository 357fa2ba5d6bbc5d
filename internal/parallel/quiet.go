package parallel

import (
	"fmt"
	"slices"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
)

// writesKind is the configuration kind a spec with the feature creates.
// It only guides scheduling: the quiet gate holds every write off whatever
// a spec declares, so a spec writing a kind its features do not name is
// still kept out of a quiet window, at the cost of a waiting worker.
var writesKind = map[features.Name]quiet.Kind{
	features.MutatingWebhook:           quiet.WebhookConfigurations,
	features.ValidatingWebhook:         quiet.WebhookConfigurations,
	features.ValidatingAdmissionPolicy: quiet.ValidatingAdmissionPolicies,
	features.MutatingAdmissionPolicy:   quiet.MutatingAdmissionPolicies,
}

// quietState is the scheduling state of a quiet window of the kind: the
// specs measuring it hold it (one window at a time, back to back), the
// specs writing it share it (they start once no holder is left, instead of
// starting and then waiting at the gate).
func quietState(k quiet.Kind) string { return "quiet:" + string(k) }

// planeQuietState is the quiet window of the kind on a propagation
// plane, which no unit of the cluster or of another plane shares.
func planeQuietState(k quiet.Kind, plane int) string {
	return fmt.Sprintf("%s@plane%d", quietState(k), plane)
}

// holds is every state the unit holds exclusively.
func (u Unit) holds() []string {
	iso := u.Spec.Isolation
	out := slices.Clone(iso.Exclusive)
	for _, k := range iso.Quiet {
		if u.Plane > 0 {
			out = append(out, planeQuietState(k, u.Plane))
		} else {
			out = append(out, quietState(k))
		}
	}
	return out
}

// shares is every state the unit shares: its declared ones and the quiet
// windows of the kinds its features write (on its plane), unless it holds
// them.
func (u Unit) shares() []string {
	out := slices.Clone(u.Spec.Isolation.Shares)
	held := u.holds()
	state := quietState
	if u.Plane > 0 {
		state = func(k quiet.Kind) string { return planeQuietState(k, u.Plane) }
	}
	var written []features.Name
	for _, s := range u.Specs() {
		written = append(written, s.Features...)
	}
	for _, f := range written {
		k, ok := writesKind[f]
		if s := state(k); ok && !slices.Contains(held, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
