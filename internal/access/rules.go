package access

import (
	"slices"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Rules turns permissions into RBAC rules: one rule per API group and
// resource (with subresource), verbs sorted, rules sorted by group then
// resource, so the same list always gives the same ClusterRole. Permissions
// on named objects (impersonation) get rules of their own per verb, with
// the names sorted in resourceNames: merged with an unnamed rule they
// would cover everyone.
func Rules(list []Access) []rbacv1.PolicyRule {
	type key struct{ group, resource, namedVerb string }
	verbs := map[key]map[string]bool{}
	names := map[key][]string{}
	for _, a := range list {
		r := a.Resource
		if a.Subresource != "" {
			r += "/" + a.Subresource
		}
		k := key{a.Group, r, ""}
		if a.Name != "" {
			k.namedVerb = a.Verb
			if !slices.Contains(names[k], a.Name) {
				names[k] = append(names[k], a.Name)
			}
		}
		if verbs[k] == nil {
			verbs[k] = map[string]bool{}
		}
		verbs[k][a.Verb] = true
	}
	keys := make([]key, 0, len(verbs))
	for k := range verbs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].group != keys[j].group {
			return keys[i].group < keys[j].group
		}
		if keys[i].resource != keys[j].resource {
			return keys[i].resource < keys[j].resource
		}
		return keys[i].namedVerb < keys[j].namedVerb
	})
	rules := make([]rbacv1.PolicyRule, 0, len(keys))
	for _, k := range keys {
		var vs []string
		for v := range verbs[k] {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		rule := rbacv1.PolicyRule{APIGroups: []string{k.group}, Resources: []string{k.resource}, Verbs: vs}
		if n := names[k]; len(n) > 0 {
			rule.ResourceNames = slices.Sorted(slices.Values(n))
		}
		rules = append(rules, rule)
	}
	return rules
}
