package contract

// CEL admission policies beyond their propagation (ValidatingAdmissionPolicy,
// MutatingAdmissionPolicy): what the apiserver does with a policy's
// validations, failures, params, variables, messages, audit annotations,
// matching, mutations and reinvocation. Pinned to k8s.io/apiserver v0.37.2
// pkg/admission/plugin/policy/{validating,mutating,generic}.

const (
	vapRef = "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy"
	vpbRef = "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding"
	mapRef = "admissionregistration.k8s.io/v1 MutatingAdmissionPolicy"
)

var _ = Register(
	Clause{ID: "policy.status.type-checking", Area: CELPolicies,
		Source: "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy.status; k8s.io/kubernetes v1.37.2 pkg/controller/validatingadmissionpolicystatus; " +
			"k8s.io/apiserver v0.37.2 pkg/admission/plugin/policy/validating/typechecking.go",
		Promise: "The controller manager type-checks every generation of a ValidatingAdmissionPolicy against the schema of the kinds it matches: " +
			"status.typeChecking.expressionWarnings holds one warning per ill-typed validation expression or messageExpression (fieldRef spec.validations[i].expression or .messageExpression, " +
			"the kind and the CEL error), none for well-typed ones, and status.observedGeneration is the generation checked; a change fixing the expressions clears them.",
		Specs: []string{"PolicyTypeChecking"}},
	// validationActions
	Clause{ID: "policy.deny.status", Area: CELPolicies, Source: vpbRef + ".spec.validationActions (Deny)",
		Promise: "A failed validation under Deny rejects the request with HTTP 422 reason Invalid and the message \"ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied request: <message>\"; an object passing every validation is admitted.",
		Specs:   []string{"PolicyValidationActions"}},
	Clause{ID: "policy.deny.reason", Area: CELPolicies, Source: vapRef + ".spec.validations[].reason",
		Promise: "A validation's reason becomes the denial's reason and HTTP code (Forbidden 403, RequestEntityTooLarge 413, Invalid 422); other reasons are refused when the policy is created.",
		Specs:   []string{"PolicyValidationActions"}},
	Clause{ID: "policy.warn", Area: CELPolicies, Source: vpbRef + ".spec.validationActions (Warn)",
		Promise: "A failed validation under Warn admits the request and sends the client exactly one warning \"Validation failed for ValidatingAdmissionPolicy '<policy>' with binding '<binding>': <message>\".",
		Specs:   []string{"PolicyValidationActions", "PolicyAuditAnnotations"}},
	Clause{ID: "policy.audit.silent", Area: CELPolicies, Source: vpbRef + ".spec.validationActions (Audit)",
		Promise: "A failed validation under Audit alone admits the request without a warning.",
		Specs:   []string{"PolicyValidationActions"}},
	Clause{ID: "policy.audit.validation-failure", Area: CELPolicies, Source: vpbRef + ".spec.validationActions (Audit)", Optional: "AuditLog",
		Promise: "A failed validation under Audit (alone, with Warn or with Deny) annotates the request's audit event validation.policy.admission.k8s.io/validation_failure with a JSON list naming message, policy, binding, the failing expression's index and the binding's actions; a passing request is not annotated.",
		Specs:   []string{"PolicyAuditAnnotations"}},
	Clause{ID: "policy.audit.several-bindings", Area: CELPolicies, Optional: "AuditLog",
		Source:  vpbRef + ".spec.validationActions (Audit); k8s.io/apiserver v0.37.2 pkg/admission/plugin/policy/validating/dispatcher.go publishValidationFailureAnnotations (kubernetes PR 140001: 1.36 kept only the first failure)",
		Promise: "When the Audit bindings of several policies, or several Audit bindings of one policy, fail on one request, the one validation_failure annotation lists every failure, each naming its message, policy, binding, expression index and actions.",
		Specs:   []string{"PolicyAuditSeveralBindings"}},
	Clause{ID: "policy.validation-actions.exclusive", Area: CELPolicies, Source: vpbRef + ".spec.validationActions",
		Promise: "A binding with both Deny and Warn is refused (422 on spec.validationActions).",
		Specs:   []string{"PolicyValidationActions"}},

	// failurePolicy
	Clause{ID: "policy.failure-policy.runtime-error", Area: CELPolicies, Source: vapRef + ".spec.failurePolicy",
		Promise: "An expression that errors at run time denies under failurePolicy Fail (422, \"expression '<e>' resulted in error: ...\"); under Ignore only that expression is skipped and the policy's other validations still apply.",
		Specs:   []string{"PolicyFailurePolicy"}},
	Clause{ID: "policy.failure-policy.default", Area: CELPolicies, Source: vapRef + ".spec.failurePolicy",
		Promise: "failurePolicy defaults to Fail, and behaves as Fail.",
		Specs:   []string{"PolicyFailurePolicy"}},
	Clause{ID: "policy.failure-policy.configuration-error", Area: CELPolicies, Source: vapRef + ".spec.paramKind",
		Promise: "A policy that cannot be configured (a paramKind naming no resource) denies every request it matches under Fail (\"ValidatingAdmissionPolicy '<p>' denied request: failed to configure policy: ...\") and is skipped under Ignore.",
		Specs:   []string{"PolicyFailurePolicy"}},
	Clause{ID: "policy.failure-policy.error-follows-actions", Area: CELPolicies, Source: vpbRef + ".spec.validationActions",
		Promise: "An evaluation error under failurePolicy Fail is acted on by the binding's validationActions: under Warn it becomes a warning, not a denial.",
		Specs:   []string{"PolicyFailurePolicy"}},
	Clause{ID: "policy.compile-errors-refused", Area: CELPolicies, Source: vapRef + ".spec (validation)",
		Promise: "A policy whose validation, messageExpression, matchCondition, variable or auditAnnotation expression does not compile, or whose validation expression is not a bool, is refused when created (422 naming the field).",
		Specs:   []string{"PolicyFailurePolicy"}},

	// params
	Clause{ID: "policy.params.by-name", Area: CELPolicies, Source: vpbRef + ".spec.paramRef.name",
		Promise: "paramRef.name selects one param; for a namespaced paramKind it is looked up in the request's namespace when paramRef.namespace is empty.",
		Specs:   []string{"PolicyParams", "MutatingPolicyPatchTypes"}},
	Clause{ID: "policy.params.namespace", Area: CELPolicies, Source: vpbRef + ".spec.paramRef.namespace",
		Promise: "paramRef.namespace names the namespace the param is taken from, instead of the request's.",
		Specs:   []string{"PolicyParams"}},
	Clause{ID: "policy.params.selector", Area: CELPolicies, Source: vpbRef + ".spec.paramRef.selector",
		Promise: "paramRef.selector selects every matching param and the policy is evaluated once per param; unselected params do not apply.",
		Specs:   []string{"PolicyParams"}},
	Clause{ID: "policy.params.cluster-scoped", Area: CELPolicies, Source: vapRef + ".spec.paramKind",
		Promise: "A cluster-scoped paramKind (v1 Namespace) is found by name and by selector, and params carry apiVersion and kind.",
		Specs:   []string{"PolicyParams"}},
	Clause{ID: "policy.params.not-found-allow", Area: CELPolicies, Source: vpbRef + ".spec.paramRef.parameterNotFoundAction",
		Promise: "With no param found (by name or selector) and parameterNotFoundAction Allow, the binding is skipped and the request admitted.",
		Specs:   []string{"PolicyParams"}},
	Clause{ID: "policy.params.not-found-deny", Area: CELPolicies, Source: vpbRef + ".spec.paramRef.parameterNotFoundAction",
		Promise: "With no param found and parameterNotFoundAction Deny, the request is denied under failurePolicy Fail (\"failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction\") and admitted under Ignore.",
		Specs:   []string{"PolicyParams", "PolicyFailurePolicy"}},

	// variables and messages
	Clause{ID: "policy.variables.composition", Area: CELPolicies, Source: vapRef + ".spec.variables; MutatingAdmissionPolicy.spec.variables",
		Promise: "A variable may reference earlier variables, and validations, messageExpressions and (in a MutatingAdmissionPolicy) mutations read variables.<name>.",
		Specs:   []string{"PolicyVariablesAndMessages", "MutatingPolicyPatchTypes"}},
	Clause{ID: "policy.variables.lazy", Area: CELPolicies, Source: vapRef + ".spec.variables",
		Promise: "A variable is evaluated only when an expression uses it: an unused variable that would error does not deny.",
		Specs:   []string{"PolicyVariablesAndMessages"}},
	Clause{ID: "policy.request-variables", Area: CELPolicies, Source: vapRef + ".spec.validations[].expression",
		Promise: "Expressions see request (operation, resource, name) and namespaceObject for the request.",
		Specs:   []string{"PolicyVariablesAndMessages"}},
	Clause{ID: "policy.message-expression", Area: CELPolicies, Source: vapRef + ".spec.validations[].messageExpression",
		Promise: "A denial's message is messageExpression's value (trimmed), taking precedence over message.",
		Specs:   []string{"PolicyVariablesAndMessages", "PolicyParams"}},
	Clause{ID: "policy.message-expression.fallback", Area: CELPolicies, Source: vapRef + ".spec.validations[].messageExpression",
		Promise: "When messageExpression errors, is blank or spans lines, message is used; without message, \"failed expression: <expression>\".",
		Specs:   []string{"PolicyVariablesAndMessages"}},
	Clause{ID: "policy.message.first-failure", Area: CELPolicies, Source: vapRef + ".spec.validations",
		Promise: "When several validations fail, the denial carries the first failing validation's message.",
		Specs:   []string{"PolicyVariablesAndMessages"}},
	Clause{ID: "policy.audit-annotations.key", Area: CELPolicies, Source: vapRef + ".spec.auditAnnotations", Optional: "AuditLog",
		Promise: "Each auditAnnotation is added to the request's audit event as <policy name>/<key> with valueExpression's value.",
		Specs:   []string{"PolicyAuditAnnotations"}},
	Clause{ID: "policy.audit-annotations.omitted", Area: CELPolicies, Source: vapRef + ".spec.auditAnnotations[].valueExpression", Optional: "AuditLog",
		Promise: "An auditAnnotation whose valueExpression is null or blank is omitted.",
		Specs:   []string{"PolicyAuditAnnotations"}},

	// matching
	Clause{ID: "policy.match.conditions", Area: CELPolicies, Source: vapRef + ".spec.matchConditions",
		Promise: "A policy applies only when every matchCondition is true; one false condition skips it even if another would error.",
		Specs:   []string{"PolicyMatching", "MutatingPolicyPatchTypes"}},
	Clause{ID: "policy.match.resource-rules", Area: CELPolicies, Source: vapRef + ".spec.matchConstraints.resourceRules",
		Promise: "A policy applies only to the resources, operations and scope its resourceRules name and, where a rule lists resourceNames, to the objects it names.",
		Specs:   []string{"PolicyMatching"}},
	Clause{ID: "policy.match.exclude-resource-rules", Area: CELPolicies, Source: vapRef + ".spec.matchConstraints.excludeResourceRules",
		Promise: "excludeResourceRules (by resource or by resourceNames), of a policy and of a binding, exclude requests resourceRules match.",
		Specs:   []string{"PolicyMatching"}},
	Clause{ID: "policy.match.policy-selectors", Area: CELPolicies, Source: vapRef + ".spec.matchConstraints.{namespaceSelector,objectSelector}",
		Promise: "The policy's namespaceSelector and objectSelector exclude requests they do not select.",
		Specs:   []string{"PolicyMatching"}},
	Clause{ID: "policy.match.binding-selectors", Area: CELPolicies, Source: vpbRef + ".spec.matchResources",
		Promise: "A binding's matchResources (namespaceSelector, objectSelector, resourceRules, excludeResourceRules) further restrict the requests the binding applies to.",
		Specs:   []string{"PolicyMatching"}},
	Clause{ID: "policy.match.match-policy", Area: CELPolicies, Source: vapRef + ".spec.matchConstraints.matchPolicy",
		Promise: "matchPolicy Equivalent (the default) applies a rule to an equivalent resource's other versions (autoscaling/v2 for an autoscaling/v1 rule); Exact does not.",
		Specs:   []string{"PolicyMatching"}},

	// MutatingAdmissionPolicy
	Clause{ID: "policy.mutating.patch-types", Area: CELPolicies, Source: mapRef + ".spec.mutations[].patchType", Optional: "MutatingAdmissionPolicy",
		Promise: "ApplyConfiguration merges its object into the request's (data, labels); JSONPatch applies add, replace and remove.",
		Specs:   []string{"MutatingPolicyPatchTypes"}},
	Clause{ID: "policy.mutating.order", Area: CELPolicies, Source: mapRef + ".spec.mutations", Optional: "MutatingAdmissionPolicy",
		Promise: "A policy's mutations are applied in order, each seeing the previous one's result.",
		Specs:   []string{"MutatingPolicyPatchTypes"}},
	Clause{ID: "policy.mutating.failure-policy", Area: CELPolicies, Source: mapRef + ".spec.failurePolicy", Optional: "MutatingAdmissionPolicy",
		Promise: "A mutation that errors denies under Fail (HTTP 403, reason Invalid, \"policy '<p>' with binding '<b>' denied request: ...\"); under Ignore it alone is skipped.",
		Specs:   []string{"MutatingPolicyPatchTypes"}},
	Clause{ID: "policy.mutating.cel-variables", Area: CELPolicies, Optional: "MutatingAdmissionPolicy",
		Source: mapRef + ".spec.mutations; k8s.io/apiserver v0.37.2 pkg/admission/plugin/policy/mutating/compilation.go, pkg/admission/plugin/cel/compile.go",
		Promise: "A mutation's expressions read, on CREATE and UPDATE, request (operation, name, namespace, resource, kind, userInfo), object (the object being admitted), " +
			"oldObject (null on CREATE, the stored object on UPDATE), namespaceObject (the request's Namespace), params (the binding's param), variables (the policy's, composed), " +
			"authorizer (allowed for what the requesting user may do, not for a named service account without permissions) and authorizer.requestResource (the request's own resource).",
		Specs: []string{"MutatingPolicyCELVariables"}},
	Clause{ID: "policy.mutating.reinvocation", Area: CELPolicies, Source: mapRef + ".spec.reinvocationPolicy", Optional: "MutatingAdmissionPolicy",
		Promise: "With reinvocationPolicy IfNeeded a policy is invoked again after a later mutating webhook changed the object, and sees the change; with Never it is not.",
		Specs:   []string{"MutatingPolicyReinvocation"}},
)
