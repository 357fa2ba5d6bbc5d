package access

import (
	"slices"
	"sort"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Impersonation is what impersonating id takes, each right by name: its
// user, uid, every group and every extra value (a key whose values are
// per case is granted for any value of that key alone). Kubernetes adds
// system:authenticated itself, which takes no right.
func Impersonation(id identity.Identity) []Access {
	var out []Access
	add := func(group, resource, sub, name string) {
		out = append(out, Access{Verb: "impersonate", Group: group, Resource: resource, Subresource: sub, Name: name, Why: id.Why})
	}
	add("", "users", "", id.User)
	if id.UID != "" {
		add("authentication.k8s.io", "uids", "", id.UID)
	}
	for _, g := range id.Group {
		add("", "groups", "", g)
	}
	keys := make([]string, 0, len(id.Extra))
	for k := range id.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(id.Extra[k]) == 0 {
			add("authentication.k8s.io", "userextras", k, "")
		}
		for _, v := range id.Extra[k] {
			add("authentication.k8s.io", "userextras", k, v)
		}
	}
	return out
}

// Optional is an identity outside the harness's own that selected specs
// impersonate, with the rights it takes.
type Optional struct {
	Identity identity.Identity
	Specs    []string
	Access   []Access
}

// ForSpecs splits the impersonation rights of specs: those of the
// harness's own identities (asked for like every other right) and the
// optional identities (asked for, never required), each right naming the
// specs that declare its identity.
func ForSpecs(specs []spec.Spec) (own []Access, optional []Optional) {
	users := map[identity.Name][]string{}
	for _, s := range specs {
		for _, n := range s.Impersonates {
			if !slices.Contains(users[n], s.ShortName) {
				users[n] = append(users[n], s.ShortName)
			}
		}
	}
	for _, id := range identity.All() {
		names := users[id.Name]
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		rights := Impersonation(id)
		for i := range rights {
			rights[i].Specs = slices.Clone(names)
		}
		if id.Optional {
			optional = append(optional, Optional{Identity: id, Specs: names, Access: rights})
			continue
		}
		for _, r := range rights {
			own = Merge(own, r)
		}
	}
	return own, optional
}
