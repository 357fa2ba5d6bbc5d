package access

import (
	"slices"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/install"
)

// ReferenceInitializersAccess is what installing the reference initializers
// takes beyond a run's own rights: creating and deleting their cluster
// roles and bindings, holding every right those roles grant, and
// impersonating their poller and controller users. A user the cluster
// refuses any of them runs without them: their cases are not supported.
func ReferenceInitializersAccess() []Access {
	why := "installing the reference initializers"
	var out []Access
	for _, r := range []string{"clusterroles", "clusterrolebindings"} {
		for _, v := range []string{"create", "delete"} {
			out = append(out, Access{Verb: v, Group: "rbac.authorization.k8s.io", Resource: r, Why: why})
		}
	}
	for _, u := range install.ImpersonatedUsers() {
		out = append(out, Access{Verb: "impersonate", Resource: "users", Name: u, Why: why})
	}
	for _, role := range install.ClusterRoles() {
		for _, rule := range role.Rules {
			for _, g := range rule.APIGroups {
				for _, r := range rule.Resources {
					resource, sub, _ := strings.Cut(r, "/")
					for _, v := range rule.Verbs {
						out = Merge(out, Access{Verb: v, Group: g, Resource: resource, Subresource: sub, Why: why})
					}
				}
			}
		}
	}
	return out
}

// ReferenceInitializersInstallation is installing the reference
// initializers for those of specs that need them, as `run --plan` and the
// docs list it; false if none does.
func ReferenceInitializersInstallation(specs []spec.Spec) (Installation, bool) {
	var names []string
	for _, s := range specs {
		if slices.Contains(s.Features, features.ReferenceInitializers) {
			names = append(names, s.ShortName)
		}
	}
	return Installation{What: "the reference initializers", Specs: names, Access: ReferenceInitializersAccess()}, len(names) > 0
}
