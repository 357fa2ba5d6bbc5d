// Package access is every right a run holds in a cluster it did not build:
// the list the kubeconfig provider's preflight checks, the ClusterRole an
// in-cluster run's service account gets (internal/clusterrun), and what
// `run --plan` prints. Impersonation is granted by name only, for the
// identities of framework/identity that the selected specs declare.
package access

import (
	"slices"
	"strings"
)

// Access is one permission a run needs.
type Access struct {
	Verb, Group, Resource, Subresource string
	// Name restricts the permission to one object (RBAC resourceNames):
	// impersonation is granted per user, group, uid and extra value.
	Name string
	// Namespaced: the permission is needed in namespaces the run creates
	// (the spec namespaces), so it is checked in one that does not exist
	// yet, and granted cluster-wide.
	Namespaced bool
	// Specs are the specs that need it; empty: the harness itself and specs
	// throughout (every selection needs it).
	Specs []string
	// Why says what the permission is for, where that is not obvious.
	Why string
}

// String is the operation as the preflight names it: "create
// pods/exec", "create mutatingwebhookconfigurations.admissionregistration.k8s.io",
// "impersonate groups system:masters".
func (a Access) String() string {
	what := a.Resource
	if a.Subresource != "" {
		what += "/" + a.Subresource
	}
	if a.Group != "" {
		what += "." + a.Group
	}
	s := a.Verb + " " + what
	if a.Name != "" {
		s += " " + a.Name
	}
	return s
}

// NeededBy says who needs the permission, for the plan and the docs.
func (a Access) NeededBy() string {
	if len(a.Specs) == 0 {
		return "every run"
	}
	return strings.Join(a.Specs, ", ")
}

// Merge adds b's specs to the same permission in list (or appends b), so a
// permission two identities need is listed once.
func Merge(list []Access, b Access) []Access {
	for i, a := range list {
		if a.Verb == b.Verb && a.Group == b.Group && a.Resource == b.Resource && a.Subresource == b.Subresource && a.Name == b.Name {
			for _, s := range b.Specs {
				if !slices.Contains(a.Specs, s) {
					list[i].Specs = append(list[i].Specs, s)
				}
			}
			slices.Sort(list[i].Specs)
			return list
		}
	}
	return append(list, b)
}
