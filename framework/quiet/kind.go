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
	// AdmissionPolicies: validating and mutating admission policies and
	// their bindings (a policy source recompiles on any of them).
	AdmissionPolicies Kind = "admission-policies"
)

// Kinds lists the kinds a case may hold.
var Kinds = []Kind{WebhookConfigurations, AdmissionPolicies}

// group is the API group every kind lives in.
const group = "admissionregistration.k8s.io"

// Validate reports an unknown kind.
func (k Kind) Validate() error {
	if !slices.Contains(Kinds, k) {
		return fmt.Errorf("unknown configuration kind %q: use one of %s, %s", k, WebhookConfigurations, AdmissionPolicies)
	}
	return nil
}

// kindOfWrite returns the kind a request writes, or "" when it writes
// none: reads, dry runs (no object changes, so no notification) and other
// groups. The kind is told by the resource name, so a resource the next
// release adds to the group is classified without a list: webhook
// configuration resources end in "webhookconfigurations", every other
// resource of the group is a policy or binding.
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
	if strings.HasSuffix(parts[i+2], "webhookconfigurations") {
		return WebhookConfigurations
	}
	return AdmissionPolicies
}
