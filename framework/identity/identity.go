// Package identity is the one registry of the identities the harness
// impersonates. Specs impersonate only identities registered here (through
// harness.Framework.Impersonate), and the rights the harness asks for
// (internal/access) are derived from this list, so the cluster refuses the
// harness any impersonation a spec does not do. It is a leaf package: spec
// metadata names identities, and nothing here knows about clients.
package identity

import (
	"fmt"
	"sort"
	"strings"
)

// Name identifies a registered identity.
type Name string

// Identity is one identity a spec impersonates: the user, uid, groups and
// extra it sends. Every name is fixed (none carries a namespace or a run
// ID), so a ClusterRole or a user's own RBAC can name them in resourceNames
// before any run starts.
type Identity struct {
	Name  Name
	User  string
	UID   string
	Group []string
	// Extra are the extra keys sent and their values; a key with no values
	// takes a value per case (Impersonate's argument) and its right names
	// the key alone (any value): only keys of the harness's own, which no
	// authorizer reads.
	Extra map[string][]string
	// Optional identities are outside the harness's own names (a cluster
	// admin, a node): impersonating one is a right an own name never
	// implies, asked for only when a spec that declares it is selected.
	// Without it the cases that impersonate it are not supported.
	Optional bool
	// Why says what the identity is for (and, if Optional, why no own
	// name does).
	Why string
}

// The registered identities.
const (
	// UserInfoUser is the user whose userInfo ReviewRequestUserInfo checks.
	UserInfoUser Name = "UserInfoUser"
	// CELLimitedUser is the user PolicyCELVariables shows the authorizer
	// acting for.
	CELLimitedUser Name = "CELLimitedUser"
	// ClusterAdmin is a member of system:masters.
	ClusterAdmin Name = "ClusterAdmin"
	// Node is a node identity the Node authorizer judges.
	Node Name = "Node"
	// Reviewer is a member of system:masters whose requests only one case's
	// webhooks see (by the case's extra value).
	Reviewer Name = "Reviewer"
)

// CaseExtra is the extra key whose value tells one case's requests from
// another's when the user is the same.
const CaseExtra = "admission-conformance.io/case"

var registry = map[Name]Identity{
	UserInfoUser: {User: "admission-conformance:userinfo", UID: "admission-conformance:userinfo-uid",
		Group: []string{"admission-conformance:userinfo-group"}, Extra: map[string][]string{"scopes": {"read", "write"}},
		Why: "webhooks must see an impersonated user's username, uid, groups and extra, never the impersonator's"},
	CELLimitedUser: {User: "admission-conformance:cel-limited",
		Why: "the CEL authorizer checks for the requesting user, who holds only a Role in the case's namespace"},
	ClusterAdmin: {User: "admission-conformance:cel-admin", Group: []string{"system:masters"}, Optional: true,
		Why: "the CEL authorizer allows a cluster admin what the policy checks (/metrics, configmaps in kube-system); " +
			"only a member of system:masters is one, whoever runs the harness"},
	Node: {User: "system:node:cel-node", Group: []string{"system:nodes"}, Optional: true,
		Why: "the CEL authorizer passes field selectors to the Node authorizer, which judges node identities only; " +
			"a node identity may register its Node and read what pods bound to it mount"},
	Reviewer: {User: "admission-conformance:reviewer", Group: []string{"system:masters"}, Extra: map[string][]string{CaseExtra: nil}, Optional: true,
		Why: "every review resource must be authorized for the reviewer (a request RBAC refuses never reaches admission), " +
			"token and subject access reviews included"},
}

func init() {
	for n, id := range registry {
		id.Name = n
		registry[n] = id
	}
}

// Lookup returns the identity called name.
func Lookup(name Name) (Identity, error) {
	id, ok := registry[name]
	if !ok {
		return Identity{}, fmt.Errorf("unknown identity %q (framework/identity)", name)
	}
	return id, nil
}

// All returns every registered identity by name.
func All() []Identity {
	out := make([]Identity, 0, len(registry))
	for _, id := range registry {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// String names the identity as a user would: "user U (uid X, groups G, extra K=V)".
func (id Identity) String() string {
	var more []string
	if id.UID != "" {
		more = append(more, "uid "+id.UID)
	}
	if len(id.Group) > 0 {
		more = append(more, "groups "+strings.Join(id.Group, ","))
	}
	keys := make([]string, 0, len(id.Extra))
	for k := range id.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.Join(id.Extra[k], ",")
		if v == "" {
			v = "<per case>"
		}
		more = append(more, "extra "+k+"="+v)
	}
	if len(more) == 0 {
		return "user " + id.User
	}
	return "user " + id.User + " (" + strings.Join(more, ", ") + ")"
}
