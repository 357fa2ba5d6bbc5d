package fields

// The admission CEL environment's entries (internal/contract/celenv): the
// variables an expression reads where it is written, and the libraries of
// functions and macros. A variable is exercised when an accepted
// expression reads it; its clause's specs check the value it holds in each
// operation.

// celVariables are the variables every context declares.
func celVariables(clauses ...string) map[string]Decision {
	d := c(clauses...)
	return map[string]Decision{
		"object":                     d,
		"oldObject":                  d,
		"request":                    d,
		"namespaceObject":            d,
		"authorizer":                 d,
		"authorizer.requestResource": d,
	}
}

var celFields = merge(
	// A webhook's matchConditions compile with object, oldObject, request,
	// authorizer and namespaceObject, which the webhook matcher always
	// binds to null (webhook/matchconditions/matcher.go).
	under("variables.webhook", override(celVariables("matching.match-conditions.variables", "matching.match-conditions"), map[string]Decision{
		"namespaceObject": c("matching.match-conditions.variables").WithGap("declared for webhook matchConditions but always null there (the webhook matcher binds no namespace): no spec reads it, the documentation says nothing of it"),
	})),
	under("variables.validating", override(celVariables("cel.variables"), map[string]Decision{
		"authorizer":                 c("cel.variables.authorizer"),
		"authorizer.requestResource": c("cel.variables.authorizer"),
		"params":                     c("cel.variables", "policy.params.by-name"),
		"variables":                  c("cel.variables", "policy.variables.composition", "policy.variables.lazy"),
	})),
	under("variables.mutating", merge(celVariables("policy.mutating.cel-variables"), map[string]Decision{
		"params":    c("policy.mutating.cel-variables"),
		"variables": c("policy.mutating.cel-variables", "policy.mutating.patch-types"),
	})),
	under("libraries", map[string]Decision{
		"cel.lib.std":               c("cel.libraries"),
		"cel.lib.optional":          c("cel.libraries"),
		"cel.lib.ext.strings":       c("cel.libraries"),
		"cel.lib.ext.sets":          c("cel.libraries"),
		"cel.lib.ext.lists":         c("cel.libraries"),
		"cel.lib.ext.comprev2":      c("cel.libraries"),
		"kubernetes.urls":           c("cel.libraries"),
		"kubernetes.regex":          c("cel.libraries"),
		"kubernetes.lists":          c("cel.libraries"),
		"kubernetes.quantity":       c("cel.libraries"),
		"kubernetes.net.ip":         c("cel.libraries"),
		"kubernetes.net.cidr":       c("cel.libraries"),
		"kubernetes.format":         c("cel.libraries"),
		"kubernetes.Semver":         c("cel.libraries"),
		"kubernetes.authz":          c("cel.variables.authorizer", "policy.mutating.cel-variables"),
		"kubernetes.authzSelectors": c("cel.variables.authorizer-selectors"),
		"kubernetes.jsonpatch":      c("cel.libraries.jsonpatch", "policy.mutating.patch-types"),
	}),
)
