package contract

// The configuration API itself: the defaults the apiserver applies to
// webhook configurations and admission policies, and the objects it must
// refuse. Pinned to k8s.io/kubernetes v1.37.2
// pkg/apis/admissionregistration/v1/defaults.go and
// pkg/apis/admissionregistration/validation/validation.go (both as in
// v1.36.3). The names reserved for static configurations (.static.k8s.io)
// are the static area's.

const (
	whRef   = "admissionregistration.k8s.io/v1 MutatingWebhook and ValidatingWebhook"
	mwhRef  = "admissionregistration.k8s.io/v1 MutatingWebhook"
	vapbRef = "admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding"
	mapbRef = "admissionregistration.k8s.io/v1 MutatingAdmissionPolicyBinding"
)

var configDefaults = []string{"WebhookConfigurationDefaults"}
var configValidation = []string{"WebhookConfigurationValidation"}

// Promises of both policy kinds are checked by a core spec for
// ValidatingAdmissionPolicy and an extended one for MutatingAdmissionPolicy.
var (
	policyDefaults   = []string{"ValidatingAdmissionPolicyDefaults", "MutatingAdmissionPolicyDefaults"}
	policyValidation = []string{"ValidatingAdmissionPolicyValidation", "MutatingAdmissionPolicyValidation"}
)

var _ = Register(
	// Webhook defaults.
	Clause{ID: "config.default.failure-policy", Area: ConfigurationAPI, Source: whRef + ".failurePolicy (defaults to Fail)",
		Promise: "An unset failurePolicy is stored as Fail and behaves as Fail: a webhook answering HTTP 500 rejects the request with 500 InternalError naming it.",
		Specs:   configDefaults},
	Clause{ID: "config.default.timeout", Area: ConfigurationAPI, Source: whRef + ".timeoutSeconds (defaults to 10)",
		Promise: "An unset timeoutSeconds is stored as 10 and the apiserver tells the webhook ?timeout=10s.",
		Specs:   configDefaults},
	Clause{ID: "config.default.match-policy", Area: ConfigurationAPI, Source: whRef + ".matchPolicy (defaults to Equivalent)",
		Promise: "An unset matchPolicy is stored as Equivalent: a rule for autoscaling/v1 HorizontalPodAutoscalers matches a request made through autoscaling/v2.",
		Specs:   configDefaults},
	Clause{ID: "config.default.selectors", Area: ConfigurationAPI, Source: whRef + ".namespaceSelector, objectSelector (default to {})",
		Promise: "An unset namespaceSelector or objectSelector is stored as the empty selector {} and selects every namespace or object.",
		Specs:   configDefaults},
	Clause{ID: "config.default.rule-scope", Area: ConfigurationAPI, Source: whRef + ".rules[].scope (defaults to \"*\")",
		Promise: "An unset rule scope is stored as \"*\" and matches namespaced resources.",
		Specs:   configDefaults},
	Clause{ID: "config.default.reinvocation", Area: ConfigurationAPI, Source: mwhRef + ".reinvocationPolicy (defaults to Never)",
		Promise: "An unset reinvocationPolicy is stored as Never: the webhook is called once even when a later webhook changes the object.",
		Specs:   configDefaults},

	// Webhook validation.
	Clause{ID: "config.validate.accepts-valid", Area: ConfigurationAPI, Source: whRef,
		Promise: "Well-formed configurations are accepted, at the limits too (timeoutSeconds 1 and 30, 64 matchConditions, pods/*, */*, operations *, a service reference), and a dry-run create stores nothing.",
		Specs:   configValidation},
	Clause{ID: "config.validate.timeout-range", Area: ConfigurationAPI, Source: whRef + ".timeoutSeconds (between 1 and 30)",
		Promise: "timeoutSeconds outside 1..30 is refused (422 naming webhooks[i].timeoutSeconds).",
		Specs:   configValidation},
	Clause{ID: "config.validate.star-alone", Area: ConfigurationAPI,
		Source:  "seed 002 Specification: if '*' is present, the length of the slice must be one; " + whRef + ".rules[].apiGroups, apiVersions, operations, resources",
		Promise: "'*' with another entry in apiGroups, apiVersions, operations or (resources without a subresource) resources is refused naming that list; v1 accepts '*' with subresources, which '*' does not cover.",
		Specs:   configValidation},
	Clause{ID: "config.validate.rule-parts", Area: ConfigurationAPI, Source: whRef + ".rules[] (apiGroups, apiVersions, resources, operations)",
		Promise: "A rule without apiGroups, apiVersions, resources or operations, or with an empty apiVersion or resource, is refused naming the field (Required value); several groups without '*' (the core group among them) are accepted.",
		Specs:   configValidation},
	Clause{ID: "config.validate.resource-wildcards", Area: ConfigurationAPI, Source: whRef + ".rules[].resources",
		Promise: "'*/*' with another resource, and 'x/*' or '*/y' with a resource they cover, are refused naming the resources.",
		Specs:   configValidation},
	Clause{ID: "config.validate.operations", Area: ConfigurationAPI, Source: whRef + ".rules[].operations, rules[].scope",
		Promise: "An operation other than CREATE, UPDATE, DELETE, CONNECT or *, and a scope other than Cluster, Namespaced or *, are refused naming the field.",
		Specs:   configValidation},
	Clause{ID: "config.validate.side-effects", Area: ConfigurationAPI, Source: whRef + ".sideEffects",
		Promise: "sideEffects is required and must be None or NoneOnDryRun: unset, Unknown and Some are refused naming webhooks[i].sideEffects, on create and on an update of a configuration whose webhooks all declare None or NoneOnDryRun.",
		Specs:   configValidation},
	Clause{ID: "config.validate.review-versions", Area: ConfigurationAPI, Source: whRef + ".admissionReviewVersions",
		Promise: "admissionReviewVersions is required and must include a version the apiserver speaks (v1 or v1beta1), without duplicates, each a DNS-1035 label; unknown versions besides one are accepted; an update may not leave a configuration whose webhooks all name a version it speaks with one that names none.",
		Specs:   configValidation},
	Clause{ID: "config.validate.webhook-name", Area: ConfigurationAPI,
		Source:  "seed 002 Specification: Name should be fully qualified; " + whRef + ".name",
		Promise: "A webhook name that is not fully qualified (three dot-separated segments), or that repeats another webhook's name in the configuration, is refused naming webhooks[i].name.",
		Specs:   configValidation},
	Clause{ID: "config.validate.client-config", Area: ConfigurationAPI, Source: whRef + ".clientConfig",
		Promise: "clientConfig must have exactly one of url and service; a url must be https with no fragment or query; a service needs a namespace.",
		Specs:   configValidation},
	Clause{ID: "config.validate.match-conditions", Area: ConfigurationAPI, Source: whRef + ".matchConditions",
		Promise: "More than 64 matchConditions, a condition that does not compile or is not a bool, and two conditions with one name are refused naming the field. On update they are compiled again whenever a webhook is added, removed or its matchConditions change: an update adding a webhook whose matchCondition does not compile, or changing a webhook's matchCondition to one, is refused.",
		Specs:   configValidation},
	Clause{ID: "config.validate.selectors", Area: ConfigurationAPI, Source: whRef + ".namespaceSelector, objectSelector",
		Promise: "A selector with an unknown operator or an invalid label value (in matchLabels or matchExpressions) is refused naming the selector's field, on create and on an update of a configuration whose selectors are all valid.",
		Specs:   configValidation},
	Clause{ID: "config.validate.enums", Area: ConfigurationAPI, Source: whRef + ".failurePolicy, matchPolicy, reinvocationPolicy",
		Promise: "A failurePolicy other than Fail or Ignore (Retry included, which seed 002 excluded), a matchPolicy other than Exact or Equivalent and a reinvocationPolicy other than Never or IfNeeded are refused naming the field.",
		Specs:   configValidation},

	// Admission policy defaults.
	Clause{ID: "config.policy-default.failure-policy", Area: ConfigurationAPI, Source: vapRef + ".spec.failurePolicy; " + mapRef + ".spec.failurePolicy",
		Promise: "An unset failurePolicy of a ValidatingAdmissionPolicy or MutatingAdmissionPolicy is stored as Fail; a MutatingAdmissionPolicy's then denies when a mutation errors.",
		Specs:   policyDefaults},
	Clause{ID: "config.policy-default.match-resources", Area: ConfigurationAPI,
		Source:  vapRef + ".spec.matchConstraints; " + vapbRef + " and " + mapbRef + ".spec.matchResources",
		Promise: "In a policy's matchConstraints and a binding's matchResources, unset matchPolicy is stored as Equivalent (and behaves so), selectors as {}, resourceRules' scope as \"*\".",
		Specs:   policyDefaults},
	Clause{ID: "config.policy-default.reinvocation-required", Area: ConfigurationAPI, Source: mapRef + ".spec.reinvocationPolicy (Required)",
		Promise: "A MutatingAdmissionPolicy's reinvocationPolicy has no default: a policy without it is refused naming spec.reinvocationPolicy.",
		Specs:   []string{"MutatingAdmissionPolicyDefaults"}, Optional: "MutatingAdmissionPolicy"},

	// Admission policy validation.
	Clause{ID: "config.policy-validate.accepts-valid", Area: ConfigurationAPI, Source: vapRef + ", " + mapRef + " and their bindings",
		Promise: "Well-formed policies and bindings are accepted.",
		Specs:   policyValidation},
	Clause{ID: "config.policy-validate.required", Area: ConfigurationAPI, Source: vapRef + ".spec; " + mapRef + ".spec",
		Promise: "A policy without matchConstraints, resourceRules, validations (or auditAnnotations), mutations, a validation's expression, or a mutation's patch for its patchType is refused naming the field; so is a mutation without patchType, an ApplyConfiguration mutation that also carries a jsonPatch, and a blank applyConfiguration or JSONPatch expression. A policy's status.typeChecking may be written by a client, and a warning without text or whose fieldRef is blank or not a JSONPath is refused naming it.",
		Specs:   policyValidation},
	Clause{ID: "config.policy-validate.star-alone", Area: ConfigurationAPI,
		Source:  "seed 002 Specification: if '*' is present, the length of the slice must be one; " + vapRef + ".spec.matchConstraints.resourceRules",
		Promise: "'*' with another entry, or '*/*' with another resource, in a policy's or binding's resourceRules or excludeResourceRules is refused naming the list; so is a resourceName that is not a path segment or is listed twice.",
		Specs:   policyValidation},
	Clause{ID: "config.policy-validate.enums", Area: ConfigurationAPI, Source: vapRef + ".spec.failurePolicy, matchConstraints.matchPolicy; " + mapRef + ".spec.reinvocationPolicy, mutations[].patchType",
		Promise: "An unknown failurePolicy, matchPolicy, reinvocationPolicy or patchType, and a selector with an unknown operator, are refused naming the field.",
		Specs:   policyValidation},
	Clause{ID: "config.policy-validate.binding", Area: ConfigurationAPI, Source: vapbRef + ".spec.policyName, validationActions; " + mapbRef + ".spec.policyName",
		Promise: "A binding without policyName or whose policyName is not a DNS subdomain, or a ValidatingAdmissionPolicyBinding with no, a repeated or an unknown validationAction, is refused naming the field.",
		Specs:   policyValidation},
	Clause{ID: "config.policy-validate.param-ref", Area: ConfigurationAPI, Source: vapbRef + ".spec.paramRef; " + mapbRef + ".spec.paramRef",
		Promise: "A paramRef needs exactly one of name (a path segment) and selector, and a parameterNotFoundAction of Allow or Deny; otherwise it is refused naming the field.",
		Specs:   policyValidation},
	Clause{ID: "config.policy-validate.expressions", Area: ConfigurationAPI, Source: vapRef + ".spec.validations, variables, auditAnnotations, paramKind; " + mapRef + ".spec.mutations",
		Promise: "A validation message spanning lines or blank, a blank messageExpression, a variable without name or with a blank expression (a one-character expression is accepted) or a name that is not a CEL identifier, a matchCondition without name or with a blank expression, two auditAnnotations with one key, an auditAnnotation key that with the policy's name ('<name>/<key>', names of one character included) is not a qualified name, a paramKind without apiVersion or kind, with an apiVersion of two slashes, without version, with a group that is not a DNS subdomain or a version that is not a DNS label, or a kind that is not a DNS label, more than 20 auditAnnotations, an auditAnnotation valueExpression over 5 KiB, an auditAnnotation of a policy without metadata.name, a paramKind apiVersion of a lone slash, and a mutation expression that does not compile are refused naming the field; an update that keeps an expression the stored policy holds compiles it again and is accepted, or refused for what it is. Every CEL expression of a policy (validations, messageExpression, auditAnnotations, matchConditions, variables, mutations) may refer to params only when the policy has a paramKind: the same expression is refused as an undeclared reference without one and accepted with one.",
		Specs:   policyValidation},
	Clause{ID: "config.policy-validate.no-delete-mutation", Area: ConfigurationAPI, Source: mapRef + ".spec.matchConstraints; " + mapbRef + ".spec.matchResources",
		Promise: "A MutatingAdmissionPolicy or its binding matching DELETE, which cannot be mutated, is refused naming resourceRules.operations.",
		Specs:   []string{"MutatingAdmissionPolicyValidation"}, Optional: "MutatingAdmissionPolicy"},
)
