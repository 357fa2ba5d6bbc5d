package quiet

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Kind is a family of admission configurations an apiserver re-reads
// together on a notification of any of them.
type Kind string

const (
	// WebhookConfigurations: mutating and validating webhook configurations
	// (each phase's configuration manager lists all of its kind on a
	// notification).
	WebhookConfigurations Kind = "webhook-configurations"
	// ValidatingAdmissionPolicies: validating admission policies and their
	// bindings (the validating policy plugin's source recompiles on any of
	// them, and on nothing else: k8s.io/apiserver
	// pkg/admission/plugin/policy/generic/policy_source.go watches its own
	// policy and binding informers).
	ValidatingAdmissionPolicies Kind = "validating-admission-policies"
	// MutatingAdmissionPolicies: mutating admission policies and their
	// bindings (the mutating policy plugin's own source).
	MutatingAdmissionPolicies Kind = "mutating-admission-policies"
)

// Kinds lists the kinds a case may hold.
var Kinds = []Kind{WebhookConfigurations, ValidatingAdmissionPolicies, MutatingAdmissionPolicies}

// group is the API group every kind lives in.
const group = "admissionregistration.k8s.io"

// Validate reports an unknown kind.
func (k Kind) Validate() error {
	if !slices.Contains(Kinds, k) {
		return fmt.Errorf("unknown configuration kind %q: use one of %s, %s, %s", k, WebhookConfigurations, ValidatingAdmissionPolicies, MutatingAdmissionPolicies)
	}
	return nil
}

// kindOfWrite returns the kind a request writes, or "" when it writes
// none: reads, dry runs (no object changes, so no notification) and other
// groups. The kind is told by the resource name, so a resource the next
// release adds to the group is classified without a list: webhook
// configuration resources end in "webhookconfigurations", mutating policy
// resources start with "mutating", and every other resource of the group
// counts as a validating policy or binding.
func kindOfWrite(r *http.Request) Kind {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return ""
	}
	if r.URL.Query().Has("dryRun") {
		return ""
	}
	// /apis/admissionregistration.k8s.io/VERSION/RESOURCE[/NAME[/SUBRESOURCE]]
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	i := slices.Index(parts, group)
	if i < 1 || parts[i-1] != "apis" || len(parts) < i+3 {
		return ""
	}
	switch resource := parts[i+2]; {
	case strings.HasSuffix(resource, "webhookconfigurations"):
		return WebhookConfigurations
	case strings.HasPrefix(resource, "mutating"):
		return MutatingAdmissionPolicies
	}
	return ValidatingAdmissionPolicies
}
