package fields

import "github.com/admission-conformance/admission-conformance/internal/contract/decision"

// The field table: a decision for every field path the pinned types have.
// When TestEveryFieldIsDecided names an unknown path, read what the field
// does in the pinned sources and add an entry: the clauses whose specs check
// the field's behaviour (write clause and spec first if none does), with Gap
// saying what of its behaviour no spec checks yet, or OutOfScope saying why
// the admission contract needs nothing of it. Remove the entries it calls
// stale.
//
// Shared shapes (a webhook, a selector, a MatchResources, a paramRef) are
// written once and expanded under every path they appear at, so a webhook
// field means the same in both webhook kinds.

// Decision is the table's verdict on one field path.
type Decision = decision.Decision

func c(ids ...string) Decision { return decision.Of(ids...) }

func outOfScope(why string) Decision { return decision.OutOfScope(why) }

const (
	metadataWhy       = "generic object metadata: stored, validated and versioned by the apiserver for every kind alike; the admission-specific rule on names is static.reserved-suffix"
	statusListMetaWhy = "list metadata: the apiserver passes a denial's Status through whole (webhook/errors ToStatusErr), but list metadata carries nothing an admission client acts on"
)

// selector expands a LabelSelector's fields, given the clauses its
// matchLabels and its In expressions are checked by.
func selector(labels, expressions Decision) map[string]Decision {
	return map[string]Decision{
		"matchLabels":                 labels,
		"matchExpressions[].key":      expressions,
		"matchExpressions[].operator": expressions,
		"matchExpressions[].values":   expressions,
	}
}

func under(prefix string, m map[string]Decision) map[string]Decision {
	out := make(map[string]Decision, len(m))
	for k, v := range m {
		out[prefix+"."+k] = v
	}
	return out
}

func merge(ms ...map[string]Decision) map[string]Decision {
	out := map[string]Decision{}
	for _, m := range ms {
		for k, v := range m {
			if _, dup := out[k]; dup {
				panic("fields: table path " + k + " written twice")
			}
			out[k] = v
		}
	}
	return out
}

// webhookFields are a webhook's fields, in both webhook configuration kinds.
var webhookFields = merge(map[string]Decision{
	"name":                           c("config.validate.webhook-name", "answer.denial.status", "failure.fail-rejects", "propagation.webhook-field-change"),
	"clientConfig.url":               c("config.validate.client-config", "failure.fail-rejects", "propagation.webhook-field-change"),
	"clientConfig.caBundle":          c("failure.fail-rejects", "propagation.webhook-field-change"),
	"clientConfig.service.namespace": c("config.validate.client-config", "static.invalid-reload-keeps-previous", "failure.service-reference"),
	"clientConfig.service.name":      c("config.validate.accepts-valid", "static.invalid-reload-keeps-previous", "failure.service-reference"),
	"clientConfig.service.path":      c("config.validate.accepts-valid", "failure.service-reference"),
	"clientConfig.service.port":      c("config.validate.accepts-valid", "failure.service-reference"),
	"rules[].operations":             c("matching.operations", "config.validate.operations", "config.validate.star-alone", "propagation.webhook-field-change"),
	"rules[].apiGroups":              c("matching.resources-wildcards", "config.validate.star-alone", "propagation.webhook-field-change"),
	"rules[].apiVersions":            c("matching.match-policy", "config.validate.star-alone", "propagation.webhook-field-change"),
	"rules[].resources":              c("matching.resources-wildcards", "config.validate.resource-wildcards", "propagation.webhook-configuration-change", "propagation.webhook-field-change"),
	"rules[].scope":                  c("matching.scope", "config.default.rule-scope", "config.validate.operations", "propagation.webhook-field-change"),
	"failurePolicy":                  c("failure.fail-rejects", "failure.ignore-admits", "config.default.failure-policy", "config.validate.enums", "propagation.webhook-configuration-change", "propagation.webhook-field-change"),
	"matchPolicy":                    c("matching.match-policy", "matching.custom-resources", "config.default.match-policy", "config.validate.enums", "propagation.webhook-field-change"),
	"sideEffects":                    c("config.validate.side-effects", "matching.dry-run"),
	"timeoutSeconds":                 c("failure.timeout-bounds-call", "failure.chain-deadline", "config.default.timeout", "config.validate.timeout-range", "propagation.webhook-field-change"),
	"admissionReviewVersions":        c("review.version-negotiation", "config.validate.review-versions", "propagation.webhook-field-change"),
	"matchConditions[].name":         c("config.validate.match-conditions"),
	"matchConditions[].expression":   c("matching.match-conditions", "config.validate.match-conditions", "propagation.webhook-field-change"),
},
	under("namespaceSelector", selector(
		c("matching.namespace-selector", "matching.namespace-selector-on-namespaces", "matching.namespace-selector-cluster-scoped", "matching.namespace-selector-follows-labels", "config.default.selectors", "propagation.webhook-field-change"),
		c("matching.selector-operators", "config.validate.selectors"))),
	under("objectSelector", selector(
		c("matching.object-selector-old-or-new", "matching.object-selector-subresources", "config.default.selectors", "propagation.webhook-field-change"),
		c("matching.selector-operators", "matching.object-selector-old-or-new", "config.validate.selectors"))),
)

// mutatingWebhookFields add what only a mutating webhook has.
var mutatingWebhookFields = merge(webhookFields, map[string]Decision{
	"reinvocationPolicy": c("order.reinvocation-if-needed", "config.default.reinvocation", "config.validate.enums"),
})

// ruleFields are a NamedRuleWithOperations' fields (policies' resourceRules
// and excludeResourceRules), given the matching clause of the list.
func ruleFields(matching string) map[string]Decision {
	return map[string]Decision{
		"operations":    c(matching, "config.policy-validate.star-alone"),
		"apiGroups":     c(matching, "config.policy-validate.star-alone"),
		"apiVersions":   c("policy.match.match-policy", "config.policy-validate.star-alone"),
		"resources":     c(matching, "config.policy-validate.star-alone"),
		"resourceNames": c("policy.match.exclude-resource-rules"),
		"scope":         c(matching, "config.policy-default.match-resources"),
	}
}

// matchResourcesFields are a MatchResources' fields (a policy's
// matchConstraints, a binding's matchResources), given the clause checking
// its selectors.
func matchResourcesFields(selectors string) map[string]Decision {
	rules := ruleFields("policy.match.resource-rules")
	rules["resourceNames"] = c("policy.match.resource-rules")
	return merge(
		under("resourceRules[]", rules),
		under("excludeResourceRules[]", override(ruleFields("policy.match.exclude-resource-rules"), map[string]Decision{
			"scope": c("config.policy-default.match-resources", "policy.match.binding-selection", "policy.mutating.matching"),
		})),
		map[string]Decision{"matchPolicy": c("policy.match.match-policy", "config.policy-default.match-resources", "config.policy-validate.enums")},
		under("namespaceSelector", selector(c(selectors, "config.policy-default.match-resources"), c(selectors, "matching.selector-operators", "config.policy-validate.enums"))),
		under("objectSelector", selector(c(selectors, "config.policy-default.match-resources"), c(selectors, "matching.selector-operators", "config.policy-validate.enums"))),
	)
}

// policyFields are what both policy kinds share under spec.
var policyFields = merge(
	under("matchConstraints", matchResourcesFields("policy.match.policy-selectors")),
	map[string]Decision{
		"paramKind.apiVersion":         c("policy.params.by-name", "policy.params.cluster-scoped", "policy.failure-policy.configuration-error"),
		"paramKind.kind":               c("policy.params.by-name", "policy.params.cluster-scoped", "policy.failure-policy.configuration-error", "config.policy-validate.expressions"),
		"matchConditions[].name":       c("config.policy-validate.accepts-valid"),
		"matchConditions[].expression": c("policy.match.conditions", "policy.compile-errors-refused"),
		"variables[].name":             c("policy.variables.composition", "config.policy-validate.expressions"),
		"variables[].expression":       c("policy.variables.composition", "policy.variables.lazy"),
	},
)

// bindingFields are what both binding kinds share under spec.
var bindingFields = merge(
	under("matchResources", matchResourcesFields("policy.match.binding-selectors")),
	map[string]Decision{
		"policyName":                       c("propagation.policy-change", "config.policy-validate.binding", "policy.deny.status"),
		"paramRef.name":                    c("policy.params.by-name", "config.policy-validate.param-ref"),
		"paramRef.namespace":               c("policy.params.namespace"),
		"paramRef.parameterNotFoundAction": c("policy.params.not-found-allow", "policy.params.not-found-deny", "config.policy-validate.param-ref"),
	},
	under("paramRef.selector", selector(c("policy.params.selector", "policy.params.cluster-scoped"), c("config.policy-validate.param-ref", "policy.match.binding-selection", "policy.mutating.matching"))),
)

// override returns base with the entries of over put in or replaced: what
// one kind means differently from the shape it shares.
func override(base, over map[string]Decision) map[string]Decision {
	out := merge(base)
	for k, v := range over {
		out[k] = v
	}
	return out
}

// statusFields are the meta.k8s.io Status of a webhook's answer.
var statusFields = map[string]Decision{
	"code":                        c("answer.denial.status", "answer.denial.fallbacks"),
	"message":                     c("answer.denial.status", "answer.denial.fallbacks"),
	"reason":                      c("answer.denial.status", "answer.denial.fallbacks"),
	"status":                      c("answer.denial.fallbacks"),
	"details.causes[].field":      c("answer.denial.status"),
	"details.causes[].message":    c("answer.denial.status"),
	"details.causes[].reason":     c("answer.denial.status"),
	"details.group":               c("answer.denial.status"),
	"details.kind":                c("answer.denial.status"),
	"details.name":                c("answer.denial.status"),
	"details.uid":                 c("answer.denial.status"),
	"details.retryAfterSeconds":   c("answer.denial.status"),
	"metadata.continue":           outOfScope(statusListMetaWhy),
	"metadata.remainingItemCount": outOfScope(statusListMetaWhy),
	"metadata.resourceVersion":    outOfScope(statusListMetaWhy),
	"metadata.selfLink":           outOfScope(statusListMetaWhy),
	"metadata.shardInfo.selector": outOfScope(statusListMetaWhy),
}

// Table is the decision for every field path of Roots.
var Table = withClause(merge(
	under("MutatingWebhookConfiguration", merge(under("webhooks[]", mutatingWebhookFields),
		map[string]Decision{"metadata": outOfScope(metadataWhy)})),
	under("ValidatingWebhookConfiguration", merge(under("webhooks[]", webhookFields),
		map[string]Decision{"metadata": outOfScope(metadataWhy)})),
	under("ValidatingAdmissionPolicy", merge(under("spec", policyFields), map[string]Decision{
		"metadata":                                          outOfScope(metadataWhy),
		"spec.failurePolicy":                                c("policy.failure-policy.runtime-error", "policy.failure-policy.default", "policy.failure-policy.configuration-error", "config.policy-default.failure-policy"),
		"spec.validations[].expression":                     c("policy.deny.status", "policy.compile-errors-refused", "config.policy-validate.required"),
		"spec.validations[].message":                        c("policy.deny.status", "policy.message-expression.fallback", "config.policy-validate.expressions"),
		"spec.validations[].messageExpression":              c("policy.message-expression", "policy.message-expression.fallback"),
		"spec.validations[].reason":                         c("policy.deny.reason"),
		"spec.auditAnnotations[].key":                       c("policy.audit-annotations.key", "config.policy-validate.expressions"),
		"spec.auditAnnotations[].valueExpression":           c("policy.audit-annotations.key", "policy.audit-annotations.omitted"),
		"status.conditions":                                 outOfScope("no component of the pinned Kubernetes writes it: the status controller (kubernetes pkg/controller/validatingadmissionpolicystatus) writes observedGeneration and typeChecking only"),
		"status.observedGeneration":                         c("policy.status.type-checking"),
		"status.typeChecking.expressionWarnings[].fieldRef": c("policy.status.type-checking"),
		"status.typeChecking.expressionWarnings[].warning":  c("policy.status.type-checking"),
	})),
	under("ValidatingAdmissionPolicyBinding", merge(under("spec", bindingFields), map[string]Decision{
		"metadata":               outOfScope(metadataWhy),
		"spec.validationActions": c("policy.deny.status", "policy.warn", "policy.audit.silent", "policy.audit.validation-failure", "policy.validation-actions.exclusive", "config.policy-validate.binding"),
	})),
	under("MutatingAdmissionPolicy", override(under("spec", policyFields), map[string]Decision{
		"metadata":                                       outOfScope(metadataWhy),
		"spec.failurePolicy":                             c("policy.mutating.failure-policy", "config.policy-default.failure-policy"),
		"spec.reinvocationPolicy":                        c("policy.mutating.reinvocation", "config.policy-default.reinvocation-required"),
		"spec.mutations[].patchType":                     c("policy.mutating.patch-types", "config.policy-validate.enums"),
		"spec.mutations[].applyConfiguration.expression": c("policy.mutating.patch-types", "policy.mutating.apply-configuration-schema", "policy.mutating.order", "config.policy-validate.required"),
		"spec.mutations[].jsonPatch.expression":          c("policy.mutating.patch-types", "config.policy-validate.expressions"),
	})),
	under("MutatingAdmissionPolicyBinding", override(under("spec", bindingFields), map[string]Decision{
		"metadata": outOfScope(metadataWhy),
		"spec.matchResources.resourceRules[].operations": c("policy.match.resource-rules", "config.policy-validate.star-alone", "config.policy-validate.no-delete-mutation"),
	})),
	under("AdmissionRequest", map[string]Decision{
		"uid":                      c("review.uid.per-call", "answer.uid-must-match"),
		"kind.group":               c("review.target"),
		"kind.version":             c("review.target"),
		"kind.kind":                c("review.target"),
		"resource.group":           c("review.target"),
		"resource.version":         c("review.target"),
		"resource.resource":        c("review.target"),
		"subResource":              c("review.target", "review.subresource"),
		"requestKind.group":        c("review.request-target"),
		"requestKind.version":      c("review.request-target"),
		"requestKind.kind":         c("review.request-target"),
		"requestResource.group":    c("review.request-target"),
		"requestResource.version":  c("review.request-target"),
		"requestResource.resource": c("review.request-target"),
		"requestSubResource":       c("review.request-target"),
		"name":                     c("review.name.generate-name"),
		"namespace":                c("review.namespace"),
		"operation":                c("review.operation"),
		"userInfo.username":        c("review.user-info"),
		"userInfo.uid":             c("review.user-info"),
		"userInfo.groups":          c("review.user-info"),
		"userInfo.extra":           c("review.user-info"),
		"object":                   c("review.object", "order.validators-see-final-object"),
		"oldObject":                c("review.old-object"),
		"dryRun":                   c("review.dry-run", "matching.dry-run"),
		"options":                  c("review.options"),
	}),
	under("AdmissionResponse", merge(under("status", statusFields), map[string]Decision{
		"uid":              c("answer.uid-must-match", "failure.wrong-uid-fails-the-call"),
		"allowed":          c("answer.denial.status", "order.chain.denial-stops"),
		"patch":            c("answer.patch-must-apply", "answer.patch-on-delete", "answer.patch-then-strategy", "answer.validating-no-patch", "answer.patch-needs-patch-type"),
		"patchType":        c("answer.patch-needs-patch-type"),
		"auditAnnotations": c("answer.audit-annotations"),
		"warnings":         c("answer.warnings"),
	})),
	under(CELRoot, celFields),
),
	// PolicyFieldChanges changes these fields of a live ValidatingAdmissionPolicy and binding.
	"propagation.policy-field-change",
	"ValidatingAdmissionPolicy.spec.validations[].expression", "ValidatingAdmissionPolicy.spec.validations[].message",
	"ValidatingAdmissionPolicy.spec.validations[].messageExpression", "ValidatingAdmissionPolicy.spec.validations[].reason",
	"ValidatingAdmissionPolicy.spec.variables[].expression", "ValidatingAdmissionPolicy.spec.matchConditions[].expression",
	"ValidatingAdmissionPolicy.spec.matchConstraints.resourceRules[].resources", "ValidatingAdmissionPolicy.spec.matchConstraints.namespaceSelector.matchLabels",
	"ValidatingAdmissionPolicy.spec.failurePolicy", "ValidatingAdmissionPolicy.spec.paramKind.kind",
	"ValidatingAdmissionPolicyBinding.spec.validationActions", "ValidatingAdmissionPolicyBinding.spec.matchResources.namespaceSelector.matchLabels",
	"ValidatingAdmissionPolicyBinding.spec.matchResources.objectSelector.matchLabels", "ValidatingAdmissionPolicyBinding.spec.paramRef.name",
	"ValidatingAdmissionPolicyBinding.spec.policyName",
)

// withClause returns t with clause added to the decisions of paths: one
// spec checking fields that several shapes share in one kind alone.
func withClause(t map[string]Decision, clause string, paths ...string) map[string]Decision {
	for _, p := range paths {
		d := t[p]
		d.Clauses = append(append([]string(nil), d.Clauses...), clause)
		t[p] = d
	}
	return t
}
