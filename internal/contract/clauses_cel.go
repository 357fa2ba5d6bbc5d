package contract

// The admission CEL environment (internal/contract/celenv): the libraries
// every admission expression may call, the variables it reads, and what
// happens when an expression errors or runs out of its cost budget, in
// ValidatingAdmissionPolicies and in webhook matchConditions. Pinned to
// k8s.io/apiserver v0.37.2 pkg/cel (environment/base.go, library/*.go),
// pkg/admission/plugin/cel, pkg/apis/cel/config.go and cel-go v0.29.2.

const (
	celEnvRef    = "k8s.io/apiserver v0.37.2 pkg/cel/environment/base.go baseOpts (MustBaseEnvSet(DefaultCompatibilityVersion()))"
	celConfigRef = "k8s.io/apiserver v0.37.2 pkg/apis/cel/config.go"
)

var _ = Register(
	// libraries
	Clause{ID: "cel.libraries", Area: CELPolicies,
		Source: celEnvRef + "; pkg/cel/library/{urls,regex,lists,quantity,ip,cidr,format,semverlib}.go; cel-go v0.29.2 ext (strings v2, sets, lists v3, two-variable comprehensions), cel optional types",
		Promise: "A ValidatingAdmissionPolicy expression can call every library of the environment of new expressions (the CEL standard library, optional types, " +
			"kubernetes.urls, regex, lists, quantity, net.ip, net.cidr, format and semver, and cel ext strings v2, sets, lists v3 and two-variable comprehensions), " +
			"each function giving its documented value for the object's data.",
		Specs: []string{"PolicyCELLibraries"}},
	Clause{ID: "cel.libraries.refused-at-creation", Area: CELPolicies,
		Source: celEnvRef + " (IntroducedVersion, NewExpressions); k8s.io/kubernetes v1.37.2 pkg/apis/admissionregistration/validation (NewExpressions for new expressions); cel-go v0.29.2 cel/validator.go",
		Promise: "A policy whose expression uses what the environment of new expressions lacks is refused when created with 422 naming the expression: " +
			"invalid duration, timestamp and regex literals, heterogeneous list literals, jsonpatch outside a MutatingAdmissionPolicy, and on a 1.37 apiserver " +
			"(compatibility version 1.36) the kubernetes.lists includes introduced at 1.37.",
		Specs: []string{"PolicyCELLibraries"}},
	Clause{ID: "cel.libraries.jsonpatch", Area: CELPolicies, Optional: "MutatingAdmissionPolicy",
		Source:  "k8s.io/apiserver v0.37.2 pkg/cel/library/jsonpatch.go; pkg/admission/plugin/cel/compile.go (hasPatchTypes)",
		Promise: "In a MutatingAdmissionPolicy's JSONPatch expression jsonpatch.escapeKey escapes '~' as '~0' and then '/' as '~1', so an escaped key is one JSON Pointer path segment.",
		Specs:   []string{"MutatingPolicyCELLibraries"}},

	// variables
	Clause{ID: "cel.variables", Area: CELPolicies,
		Source: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.validations[].expression; k8s.io/apiserver v0.37.2 pkg/admission/plugin/cel/{compile,activation,condition}.go",
		Promise: "A ValidatingAdmissionPolicy's expressions read object (the object admitted; null on DELETE; the PodExecOptions on a pods/exec CONNECT), " +
			"oldObject (null on CREATE and CONNECT; the stored object on UPDATE and DELETE), request (operation, name, namespace, resource, subResource, kind, " +
			"requestResource, requestKind, userInfo.username, dryRun, and options: the operation's CreateOptions, UpdateOptions or DeleteOptions as sent, null on CONNECT), " +
			"namespaceObject (the request's Namespace), params (the binding's param, with its kind) and variables (the policy's, composed).",
		Specs: []string{"PolicyCELVariables"}},
	Clause{ID: "cel.variables.authorizer", Area: CELPolicies,
		Source: "k8s.io/apiserver v0.37.2 pkg/cel/library/authz.go (kubernetes.authz); pkg/admission/plugin/cel/activation.go",
		Promise: "authorizer checks what the requesting user may do (group, resource, namespace, name, subresource, path, check(verb).allowed(), errored(), error(), " +
			"and the authorizer's reason()), authorizer.serviceAccount(ns, name) what that service account may do, and authorizer.requestResource the request's own " +
			"resource, namespace and name.",
		Specs: []string{"PolicyCELVariables"}},
	Clause{ID: "cel.variables.authorizer-selectors", Area: CELPolicies,
		Source:  "k8s.io/apiserver v0.37.2 pkg/cel/library/authz.go (kubernetes.authzSelectors); k8s.io/kubernetes v1.37.2 plugin/pkg/auth/authorizer/node (a node lists its pods by spec.nodeName)",
		Promise: "An authorizer check's fieldSelector and labelSelector reach the authorizer as field and label selector requirements: a node may list pods with fieldSelector spec.nodeName=<itself>, not without it, not for another node, and not with the same text as a labelSelector.",
		Specs:   []string{"PolicyCELVariables"}},

	// errors and cost budgets
	Clause{ID: "cel.cost-budget.policy", Area: CELPolicies,
		Source: celConfigRef + " (PerCallLimit 1,000,000; RuntimeCELCostBudget 10,000,000); pkg/admission/plugin/cel/activation.go; pkg/admission/plugin/policy/validating/validator.go",
		Promise: "A policy expression whose runtime cost exceeds 1,000,000 errors (\"expression '<e>' resulted in error: operation cancelled: actual cost limit exceeded\"): " +
			"Fail denies, Ignore skips it alone; validations each within that limit but together over a binding's 10,000,000 fail the binding as a whole " +
			"(\"validation failed due to running out of cost budget, no further validation rules will be run\"): Fail denies with that message even when an earlier " +
			"validation failed, Ignore skips the binding, its failed validations included; each binding of a policy has its own budget; auditAnnotations are evaluated with what the validations left of it, " +
			"and annotations over it fail the binding the same way (Fail denies with the budget message, Ignore admits).",
		Specs: []string{"PolicyCELCostBudget"}},
	Clause{ID: "cel.cost-budget.match-conditions", Area: CELPolicies,
		Source: celConfigRef + " (RuntimeCELCostBudgetMatchConditions 2,500,000); pkg/admission/plugin/webhook/matchconditions/matcher.go",
		Promise: "A webhook's or a policy's matchConditions share a runtime budget of 2,500,000 (not a binding's 10,000,000): conditions each within the per-expression limit " +
			"but together over it reject the request under Fail (a webhook with 403 \"<resource> \"<name>\" is forbidden: validation failed due to running out of cost budget, " +
			"no further validation rules will be run\", a policy with a 422 denial of that message) and skip the webhook or policy under Ignore; one condition over " +
			"1,000,000 is an evaluation error.",
		Specs: []string{"MatchConditionsErrors", "PolicyCELCostBudget"}},
	Clause{ID: "policy.match.conditions.error", Area: CELPolicies,
		Source:  "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.spec.matchConditions, failurePolicy; k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/matchconditions/matcher.go",
		Promise: "A policy matchCondition that errors at run time denies under failurePolicy Fail (422, \"... denied request: expression '<e>' resulted in error: <error>\") and skips the policy under Ignore.",
		Specs:   []string{"PolicyCELCostBudget"}},
	Clause{ID: "matching.match-conditions.error", Area: Matching,
		Source:  matchingWebhookRef + ".matchConditions, failurePolicy; k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/generic/webhook.go ShouldCallHook, matchconditions/matcher.go",
		Promise: "A webhook matchCondition (of a validating or a mutating webhook) that errors at run time or exceeds the cost limit rejects the request under failurePolicy Fail with HTTP 403 \"<resource> \"<name>\" is forbidden: expression '<e>' resulted in error: <error>\" without calling the webhook, and skips the webhook under Ignore; a false condition skips the webhook without error whatever the others' errors.",
		Specs:   []string{"MatchConditionsErrors"}},
	Clause{ID: "matching.match-conditions.variables", Area: Matching,
		Source:  matchingWebhookRef + ".matchConditions[].expression; k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/accessors.go (HasAuthorizer)",
		Promise: "A webhook's matchConditions read object (null on DELETE), oldObject (null on CREATE, the stored object on UPDATE and DELETE), request (operation, name, namespace, resource, kind, userInfo, dryRun) and authorizer (checks for the requesting user; authorizer.requestResource for the request's resource).",
		Specs:   []string{"PolicyCELVariables"}},
)
