package webhook

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// Order is how configurations are merged.
type Order int

const (
	// ByName is the seed's order: configurations sorted by name.
	ByName Order = iota
	// ReverseByName is a deliberately wrong order, for the harness's own
	// tests.
	ReverseByName
)

// Plan returns the initializers assigned to a creation of resource, in
// order: configurations sorted by name (order reverses it), initializers in
// listed order, each at most once (the first occurrence wins, since a pod
// cannot carry a gate twice).
func Plan(configs []v1alpha1.InitializerConfiguration, resource schema.GroupVersionResource, order Order) []v1alpha1.Assigned {
	sorted := slices.Clone(configs)
	slices.SortFunc(sorted, func(a, b v1alpha1.InitializerConfiguration) int {
		if order == ReverseByName {
			return strings.Compare(b.Name, a.Name)
		}
		return strings.Compare(a.Name, b.Name)
	})
	var out []v1alpha1.Assigned
	seen := map[string]bool{}
	for _, c := range sorted {
		for _, in := range c.Initializers {
			if seen[in.Name] || !anyRuleMatches(in.Rules, resource) {
				continue
			}
			seen[in.Name] = true
			out = append(out, assign(c.Name, in))
		}
	}
	return out
}

func assign(config string, in v1alpha1.Initializer) v1alpha1.Assigned {
	a := v1alpha1.Assigned{Name: in.Name, FailurePolicy: v1alpha1.Ignore, TimeoutSeconds: v1alpha1.DefaultTimeoutSeconds, Configuration: config}
	if in.FailurePolicy != nil {
		a.FailurePolicy = *in.FailurePolicy
	}
	if in.TimeoutSeconds != nil {
		a.TimeoutSeconds = *in.TimeoutSeconds
	}
	return a
}

// anyRuleMatches: "The initializer cares about an operation if it matches
// _any_ Rule."
func anyRuleMatches(rules []v1alpha1.Rule, r schema.GroupVersionResource) bool {
	for _, rule := range rules {
		// Whole resources only: the webhook sees creations of objects, and
		// validation rejects rules naming subresources.
		if matches(rule.APIGroups, r.Group) && matches(rule.APIVersions, r.Version) && matches(rule.Resources, r.Resource) {
			return true
		}
	}
	return false
}

// matches reports whether list holds value or "*".
func matches(list []string, value string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, value)
}
