package contract

// Mutate before validate, and where admission sits in a request's flow: the
// order of mutating webhooks and configurations, reinvocation, validators
// seeing the final object, the REST strategy between the two phases, the
// compiled plugins and the CEL policies around the webhooks, and the DELETE
// and CONNECT flows (seeds 000, 001, 003; kube-apiserver v1.37's chain,
// k8s.io/kubernetes v1.37.2 pkg/kubeapiserver/options/plugins.go AllOrderedPlugins).
// The chain's own clauses (a denial stops it, NamespaceLifecycle,
// PodSecurity) are in clauses_chain.go.

const (
	orderingSeed000Reqs        = "seed 000 Requirements for extensible admission"
	orderingSeed000Flows       = "seed 000 REST flows (proposed behaviour)"
	orderingMutatingWebhookRef = "admissionregistration.k8s.io/v1 MutatingWebhook"
)

var _ = Register(
	Clause{ID: "order.mutate-before-validate", Area: Ordering,
		Source:  orderingSeed000Reqs + " (object mutations must happen before object validations); " + orderingSeed000Flows + ", create, update, patch: admit.ApplyMutations before admit.Validate",
		Promise: "For every write (create, update, JSON, merge, strategic-merge and apply patches, the status subresource) every mutating webhook, of every configuration, has answered before any validating webhook is called.",
		Specs:   []string{"MutatingBeforeValidating"}},
	Clause{ID: "order.validators-see-final-object", Area: Ordering,
		Source:  orderingSeed000Reqs + "; " + orderingSeed000Flows + ", create and update: admit.Validate judges the object r.Create / r.Update persists",
		Promise: "Each validating webhook receives the object carrying every mutation, including one made only in the reinvocation round, and the object stored is the object the validators saw.",
		Specs:   []string{"ValidatorsSeeFinalObject"}},
	Clause{ID: "order.mutating-configurations-by-name", Area: Ordering, Optional: "WebhookConfigurationOrder",
		Source:  "seed 002 Dynamic admission configuration (hooks of several configurations are sorted by configuration name); kube-apiserver's behaviour, not an API guarantee",
		Promise: "Mutating webhook configurations are called in the order of their names, whatever order they were created in.",
		Specs:   []string{"MutatingConfigurationsInNameOrder"}},
	Clause{ID: "order.mutating-webhooks-listed-order", Area: Ordering,
		Source:  "seed 002 Dynamic admission configuration (the order of the hooks of one configuration is preserved); " + orderingMutatingWebhookRef + "Configuration.webhooks",
		Promise: "The mutating webhooks of one configuration are called one after another in the order the configuration lists them (not name order), each seeing the previous one's mutation.",
		Specs:   []string{"MutatingWebhooksInListedOrder"}},
	Clause{ID: "order.reinvocation-if-needed", Area: Ordering,
		Source:  orderingMutatingWebhookRef + ".reinvocationPolicy; " + orderingSeed000Reqs + " (one mutating plugin can invalidate the results of others)",
		Promise: "A mutating webhook with reinvocationPolicy IfNeeded is called again, once at most, when a mutating webhook after it changed the object, and not when none did; a webhook with Never is never called again.",
		Specs:   []string{"MutatingReinvocationPolicy"}},
	Clause{ID: "order.validators-unordered-parallel", Area: Ordering, Optional: "ParallelValidatingWebhooks",
		Source:  orderingSeed000Reqs + " (ordering does not matter for validators); kube-apiserver's validating dispatcher",
		Promise: "Validating webhooks are unordered and are called in parallel: two validating webhooks (of two configurations) that each take 1 s answer a request in about 1 s, not 2 s.",
		Specs:   []string{"ValidatingWebhooksInParallel"}},
	Clause{ID: "order.validate-after-strategy", Area: Ordering,
		Source:  orderingSeed000Flows + ", create: decode; admit.ApplyMutations; r.BeforeCreate (PrepareForCreate, FillInObjectMetaSystemFields, GenerateName); r.Validate; admit.Validate",
		Promise: "On a create, mutating admission sees the decoded request before the REST strategy (generateName unresolved, no uid, creationTimestamp or generation, the client's status); validating admission sees the object after it (name generated, system fields filled, status reset by PrepareForCreate, defaults applied).",
		Specs:   []string{"CreatePhasesAroundRESTStrategy"}},
	Clause{ID: "order.invalid-object-never-validated", Area: Ordering,
		Source:  orderingSeed000Flows + ", create: r.Validate (strategy.Validate) comes between admit.ApplyMutations and admit.Validate",
		Promise: "An object that fails API validation is rejected with 422 Invalid after mutating admission was called, and never reaches validating admission.",
		Specs:   []string{"InvalidObjectNeverReachesValidating"}},
	Clause{ID: "order.compiled-plugins-around-webhooks", Area: Ordering,
		Source:  orderingSeed000Reqs + " (compiled validating admission plugins must run after mutating admission webhooks); kube-apiserver's plugin order (AllOrderedPlugins)",
		Promise: "Compiled-in plugins judge what the mutating webhooks wrote: ResourceQuota admits or rejects a claim, and charges it, by the storage request a mutating webhook wrote, and LimitRanger enforces its maximum on the limit a webhook wrote; LimitRanger's defaults, with the kubernetes.io/limit-ranger annotation listing them, are in the object validating webhooks receive.",
		Specs:   []string{"LimitRangerAroundWebhooks", "ResourceQuotaJudgesWebhookMutations"}},
	Clause{ID: "order.validating-policy-after-mutating-webhooks", Area: Ordering,
		Source:  orderingSeed000Reqs + " (compiled validating admission plugins must run after mutating admission webhooks); admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy",
		Promise: "A ValidatingAdmissionPolicy judges the object after the mutating webhooks changed it: a policy requiring a webhook's mutation admits the object.",
		Specs:   []string{"ValidatingPolicySeesWebhookMutations"}},
	Clause{ID: "order.mutating-policy-before-webhooks", Area: Ordering, Optional: "MutatingAdmissionPolicy",
		Source:  orderingSeed000Reqs + " (every mutator before every validator); seed 003 (the chain runs plugins in their registered order); admissionregistration.k8s.io/v1 MutatingAdmissionPolicy",
		Promise: "A MutatingAdmissionPolicy's change is in the object the mutating webhooks after it receive, and in the object ValidatingAdmissionPolicies and validating webhooks judge.",
		Specs:   []string{"MutatingPolicyBeforeWebhooks"}},
	Clause{ID: "order.delete-reaches-admission", Area: Ordering,
		Source:  orderingSeed000Flows + ", Delete and DeleteCollection: r.Get; r.BeforeDelete; admit.Validate with the object being deleted; r.Delete",
		Promise: "DELETE and DELETE collection reach validating admission once per deleted object, with that object as oldObject and no object; kube-apiserver calls mutating admission first, with the same oldObject.",
		Specs:   []string{"DeleteReachesValidatingWithOldObject"}},
	Clause{ID: "order.connect-reaches-admission", Area: Ordering,
		Source:  orderingSeed000Flows + ", Connect: decode the connect options; admit.Validate; connecter.Connect; seed 001 Handles(CONNECT)",
		Promise: "A pods/exec request reaches mutating, then validating admission as a CONNECT of the exec subresource whose object is the decoded PodExecOptions, before the apiserver tries to connect to the pod.",
		Specs:   []string{"ConnectReachesAdmission"}},
)
