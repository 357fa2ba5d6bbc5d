package contract

// Which requests a webhook is called for: rules (operations, groups,
// versions, resources with their wildcards, scope), namespace and object
// selectors, matchPolicy, CEL matchConditions, the exemption of the
// configurations themselves, the review resources no webhook is called for
// (1.37) and dry runs (seed 002 RuleWithVerbs and ExternalAdmissionHook).
// Pinned to k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/{predicates,generic}.

const matchingWebhookRef = "admissionregistration.k8s.io/v1 {Mutating,Validating}Webhook"

var _ = Register(
	Clause{ID: "matching.operations", Area: Matching,
		Source:  matchingWebhookRef + ".rules[].operations; seed 002 RuleWithVerbs",
		Promise: "A webhook is called for the operations its rules list (CREATE, UPDATE, DELETE, CONNECT, or * for all of them) and for no other.",
		Specs:   []string{"MatchingOperations"}},
	Clause{ID: "matching.resources-wildcards", Area: Matching,
		Source:  matchingWebhookRef + ".rules[].resources; seed 002 Rule.Resources",
		Promise: "Rules match resources with the documented wildcards: 'pods' is pods only, 'pods/*' every subresource of pods (and, in kube-apiserver, pods itself), '*/scale' every scale subresource, '*' every resource but no subresource, '*/*' every resource and subresource (but for the admission configurations, matching.configurations-exempt, and, from 1.37, the review resources, matching.review-resources-excluded).",
		Specs:   []string{"MatchingResourcesAndWildcards"}},
	Clause{ID: "matching.scope", Area: Matching,
		Source:  matchingWebhookRef + ".rules[].scope",
		Promise: "A rule's scope selects namespaced resources (Namespaced), cluster-scoped ones (Cluster) or both (*).",
		Specs:   []string{"MatchingScope"}},
	Clause{ID: "matching.namespace-selector", Area: Matching,
		Source:  matchingWebhookRef + ".namespaceSelector",
		Promise: "A webhook with a namespaceSelector is called only for objects in namespaces whose labels it selects.",
		Specs:   []string{"MatchingSelectors"}},
	Clause{ID: "matching.namespace-selector-on-namespaces", Area: Matching,
		Source:  matchingWebhookRef + ".namespaceSelector (\"if the object itself is a namespace, the matching is performed on object.metadata.labels\"); k8s.io/apiserver webhook/predicates/namespace Matcher.GetNamespaceLabels",
		Promise: "For a request about a Namespace itself, a webhook's namespaceSelector, and a policy's matchConstraints namespaceSelector, match the labels of the namespace in the request: the new object's on CREATE and UPDATE (a label the update adds selects it, one it removes does not), the stored namespace's on DELETE.",
		Specs:   []string{"NamespaceSelectorOnNamespaces"}},
	Clause{ID: "matching.namespace-name-label", Area: Matching,
		Source:  "kubernetes.io/metadata.name (KEP-2161, set by the control plane); admissionregistration.k8s.io/v1 namespaceSelector",
		Promise: "Every namespace carries kubernetes.io/metadata.name set to its own name whatever its client sends, on create (named or generated), update and patch; validating webhooks see the true value, and a namespaceSelector on it selects only the namespace it names.",
		Specs:   []string{"NamespaceNameLabelNotForgeable"}},
	Clause{ID: "matching.namespace-selector-cluster-scoped", Area: Matching,
		Source:  matchingWebhookRef + ".namespaceSelector (\"cluster-scoped resources other than namespaces are never skipped\"); k8s.io/apiserver webhook/predicates/namespace Matcher.MatchNamespaceSelector",
		Promise: "A request about a cluster-scoped object other than a Namespace is never exempted by a namespaceSelector, a webhook's or a policy's matchConstraints', even one no namespace matches; the objectSelector still applies.",
		Specs:   []string{"NamespaceSelectorOnClusterScoped"}},
	Clause{ID: "matching.custom-resources", Area: Matching,
		Source:  matchingWebhookRef + ".rules, .matchPolicy; k8s.io/apiserver admission ConvertToGVK and the mutating dispatcher (custom resources as Unstructured)",
		Promise: "Webhooks apply to custom resources as to built-in ones: a mutating webhook's patch of a custom resource is stored and seen by the validating webhooks; with two served versions, a webhook registered for one with matchPolicy Equivalent is called for a request in the other with the object converted to its version (request.kind and resource its own, requestKind the request's), and with Exact it is not called; a ValidatingAdmissionPolicy for one version with matchPolicy Equivalent reads a request in the other converted to its version.",
		Specs:   []string{"CustomResourceAdmission"}},
	Clause{ID: "matching.object-selector-subresources", Area: Matching,
		Source:  matchingWebhookRef + ".objectSelector (\"evaluated against both the oldObject and newObject that would be sent to the webhook\"); k8s.io/apiserver webhook/predicates/object",
		Promise: "On a subresource a webhook's objectSelector is evaluated against the objects the webhook would be sent: for deployments/status the Deployment, selected by its labels; for deployments/scale the autoscaling/v1 Scale, which carries no labels, so only an empty objectSelector selects it.",
		Specs:   []string{"ObjectSelectorOnSubresources"}},
	Clause{ID: "matching.namespace-selector-follows-labels", Area: Matching,
		Source:  matchingWebhookRef + ".namespaceSelector (\"whether the namespace for that object matches the selector\"); k8s.io/apiserver webhook/predicates/namespace (namespace lister, live read on a miss)",
		Promise: "A namespaceSelector follows the namespace's current labels: a label added to a namespace selects its objects and a label removed deselects them, on every apiserver replica.",
		Specs:   []string{"NamespaceLabelChangeSelection"}},
	Clause{ID: "matching.object-selector-old-or-new", Area: Matching,
		Source:  matchingWebhookRef + ".objectSelector",
		Promise: "A webhook with an objectSelector is called only when the object or the old object has labels it selects, so a DELETE is matched on the object being deleted; a request must satisfy both the namespaceSelector and the objectSelector.",
		Specs:   []string{"MatchingSelectors", "MatchingOperations"}},
	Clause{ID: "matching.selector-operators", Area: Matching,
		Source:  matchingWebhookRef + ".namespaceSelector, .objectSelector; admissionregistration.k8s.io/v1 MatchResources selectors; meta/v1 LabelSelectorRequirement",
		Promise: "The matchExpressions operators In, NotIn, Exists and DoesNotExist select as documented in a webhook's namespaceSelector and objectSelector and in a policy's and a binding's selectors: NotIn and DoesNotExist also select objects and namespaces without the key.",
		Specs:   []string{"MatchingSelectors", "PolicyMatching"}},
	Clause{ID: "matching.match-policy", Area: Matching,
		Source:  matchingWebhookRef + ".matchPolicy; seed 002 Rule (the versions of one resource)",
		Promise: "Under matchPolicy Equivalent a rule on autoscaling/v1 HorizontalPodAutoscalers matches a request made through autoscaling/v2, sending the object converted to v1 and saying the request was v2; under Exact it does not.",
		Specs:   []string{"MatchingPolicyExactAndEquivalent"}},
	Clause{ID: "matching.match-policy.between-mutating-webhooks", Area: Matching,
		Source:  "admissionregistration.k8s.io/v1 MutatingWebhook.matchPolicy; k8s.io/apiserver v0.37.2 pkg/admission/conversion.go ConvertVersionedAttributes, plugin/webhook/mutating/dispatcher.go versionedAttributeAccessor",
		Promise: "A mutating webhook registered for another version of a kind with matchPolicy Equivalent, called after a webhook registered for the request's version, is sent the object converted to its version with the earlier webhook's patch applied (request.kind its own, requestKind the request's; on UPDATE the stored old object converted too), and the stored object carries both webhooks' patches.",
		Specs:   []string{"ConversionBetweenMutatingWebhooks"}},
	Clause{ID: "matching.match-conditions", Area: Matching,
		Source:  matchingWebhookRef + ".matchConditions (GA in 1.30); seed 002 Future work",
		Promise: "A webhook with CEL matchConditions is called only for requests for which every condition is true.",
		Specs:   []string{"MatchingConditions"}},
	Clause{ID: "matching.configurations-exempt", Area: Matching,
		Source: "k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/predicates/rules IsExemptAdmissionConfigurationResource (webhooks: the six admissionregistration.k8s.io kinds) " +
			"and pkg/admission/plugin/policy/generic admissionResources (policies: the four policy kinds); seed 002 Goals (do not block the entire cluster)",
		Promise: "Webhooks registered through the API are not called for requests on ValidatingWebhookConfigurations, MutatingWebhookConfigurations, " +
			"ValidatingAdmissionPolicies, MutatingAdmissionPolicies and their bindings, and policies registered through the API are not evaluated for the four policy kinds " +
			"(they are for webhook configurations): a webhook or policy denying everything cannot stop these objects from being created, updated or deleted, " +
			"so a broken one can always be removed. Static (manifest-based) webhooks and policies are called for them (static.called-for-configurations).",
		Specs: []string{"WebhooksCannotBlockWebhookConfigurations", "PoliciesCannotBlockPolicies", "MutatingPoliciesCannotBeBlocked"}},
	Clause{ID: "matching.review-resources-excluded", Area: Matching, Optional: "WebhookVirtualResourcesExcluded",
		Source: "k8s.io/apiserver v0.37.2 pkg/admission/plugin/webhook/generic/webhook.go isExcludedFromAllHooks (gate ExcludeAdmissionWebhookVirtualResources, beta and on in 1.37); " +
			"k8s.io/kubernetes v1.37.2 pkg/kubeapiserver/admission/exclusion Excluded()",
		Promise: "No webhook, whatever its rules, is called for tokenreviews and selfsubjectreviews (authentication.k8s.io) or subjectaccessreviews, selfsubjectaccessreviews, " +
			"selfsubjectrulesreviews and localsubjectaccessreviews (authorization.k8s.io): a Fail webhook on */* whose server is down blocks none of them while it rejects a ConfigMap.",
		Specs: []string{"WebhooksSkipReviewResources"}},
	Clause{ID: "matching.review-resources-warning", Area: Matching, Optional: "WebhookVirtualResourcesExcluded",
		Source: "k8s.io/kubernetes v1.37.2 pkg/registry/admissionregistration/{validating,mutating}webhookconfiguration/strategy.go WarningsOnCreate, WarningsOnUpdate; " +
			"pkg/apis/admissionregistration/validation/warnings.go",
		Promise: "Creating or updating a webhook configuration whose rule names an excluded review resource (group and resource both explicit, no '*') answers with one warning per resource and rule: " +
			"\"webhooks[i].rules[j]: <resource>.<group> is excluded from admission webhooks; this rule will have no effect\".",
		Specs: []string{"WebhooksSkipReviewResources"}},
	Clause{ID: "matching.dry-run", Area: Matching,
		Source:  matchingWebhookRef + ".sideEffects; admission.k8s.io/v1 AdmissionRequest.dryRun; seed 002 ExternalAdmissionHook (dry runs included)",
		Promise: "A dry-run request reaches the webhooks it matches that declare sideEffects None or NoneOnDryRun, with dryRun true, and nothing is stored; v1 refuses webhooks declaring sideEffects Unknown or Some.",
		Specs:   []string{"DryRunAndSideEffects"}},
)
