package contract

// Hold until initialized. Upstream removed initializers (the alpha API in
// 1.14, metadata.initializers in 1.16); for pods, scheduling gates (GA in
// 1.30) took their place, and the init.* clauses without "reference" are
// upstream's gates. Seed 002's initializer contract and seed 000's "update
// mutators do not run during initialization" have no upstream
// implementation: the init.reference.* clauses are provided only by the
// project's reference implementation (reference/initializers), and their
// specs are in the reference profile.

const (
	initGatesRef     = "core/v1 PodSpec.schedulingGates (KEP-3521, GA in 1.30)"
	initReferenceRef = "reference implementation only (reference/initializers); no upstream implementation"
)

var _ = Register(
	// Upstream: the removed API and scheduling gates.
	Clause{ID: "init.api-removed", Area: Initializers,
		Source:  "seed 002 Specification (the InitializerConfiguration schema); removed upstream: admissionregistration.k8s.io/v1alpha1 InitializerConfiguration in 1.14, metadata.initializers in 1.16",
		Promise: "No API group serves an InitializerConfiguration, and metadata.initializers is an unknown field: rejected under strict field validation, dropped otherwise.",
		Specs:   []string{"InitializersAPIRemoved"}},
	Clause{ID: "init.gates-only-at-create", Area: Initializers,
		Source:  initGatesRef + "; seed 002 Background (initializers are set for resources newly created)",
		Promise: "Scheduling gates can only be set when a pod is created, by its client or by a mutating webhook on the CREATE; adding or renaming a gate later (also by a webhook mutating an UPDATE) is rejected with upstream's message and the stored gates do not change.",
		Specs:   []string{"SchedulingGateAddRejected", "WebhookAddsGatesOnlyAtCreate"}},
	Clause{ID: "init.gate-names-validated", Area: Initializers,
		Source:  initGatesRef + "; seed 002 Specification (Name should be fully qualified)",
		Promise: "Gate names must be unique qualified names, and a pod cannot be created both bound (spec.nodeName) and gated: each is rejected as invalid, naming the field; well-formed gates are accepted.",
		Specs:   []string{"SchedulingGateValidation"}},
	Clause{ID: "init.gated-pod-not-bound", Area: Initializers,
		Source:  initGatesRef + "; seed 002 Background (initializers hold a newly created resource until they are done)",
		Promise: "A pod with scheduling gates is not bound: binding it (POST pods/binding) fails with 409 Conflict naming the gates, and a scheduler leaves it unbound with PodScheduled=False, reason SchedulingGated, while the same pod without gates is bound.",
		Specs:   []string{"GatedPodBindingConflict", "SchedulingGateHoldsPod"}},
	Clause{ID: "init.gates-removed-any-order", Area: Initializers, Optional: "Scheduler",
		Source:  initGatesRef + "; seed 002 Background (held until the last initializer is removed; the seed's go in list order, gates in any)",
		Promise: "Gates can be removed in any order; the pod stays unbound until the last one is gone, then the scheduler binds it within the binding bound.",
		Specs:   []string{"SchedulingGatesRemovedInAnyOrder"}},
	Clause{ID: "init.gated-pod-scheduling-tighten-only", Area: Initializers,
		Source:  "core/v1 PodSpec.nodeSelector (mutable scheduling directives of gated pods, KEP-3838); seed 000 Requirements (an object being initialized follows creation validation, not every update restriction)",
		Promise: "While a pod is gated its nodeSelector can only be tightened: new keys are accepted, changing or removing a key is rejected; a pod without gates cannot change its nodeSelector at all.",
		Specs:   []string{"GatedPodNodeSelectorTightenOnly"}},

	// Seed 002's initializers: the reference implementation only.
	Clause{ID: "init.reference.order", Area: Initializers,
		Source:  "seed 002 Specification (initializers of several configurations sorted by configuration name, each configuration's order preserved); " + initReferenceRef,
		Promise: "Initializers of several InitializerConfigurations are assigned sorted by configuration name with each configuration's order kept, whatever order the configurations were created in, and each gets its turn only after the one before it finished.",
		Specs:   []string{"InitializerOrderAcrossConfigurations"}},
	Clause{ID: "init.reference.rules", Area: Initializers,
		Source:  "seed 002 Specification (an initializer cares about an operation if it matches any Rule; '*' is all); " + initReferenceRef,
		Promise: "An initializer is assigned to a pod creation when any of its rules matches, '*' matching every group, version or resource; one without a matching rule is not assigned, and one named in two configurations is assigned once, where the first configuration puts it.",
		Specs:   []string{"InitializerRulesMatching"}},
	Clause{ID: "init.reference.configuration-validation", Area: Initializers,
		Source:  "seed 002 Specification ('*' alone in its list; Name fully qualified); " + initReferenceRef,
		Promise: "InitializerConfigurations are validated: '*' must be alone in its list, subresource rules are rejected, names are fully qualified and unique, timeouts positive.",
		Specs:   []string{"InitializerConfigurationValidation"}},
	Clause{ID: "init.reference.created-fail-open", Area: Initializers,
		Source:  "seed 002 Handling initializers that are not ready but registered (created fail open only, upgraded to fail closed by an update); " + initReferenceRef,
		Promise: "An InitializerConfiguration with a Fail initializer cannot be created (403 naming it); one with Ignore or no policy (defaulted to Ignore) can, and can then be updated to Fail.",
		Specs:   []string{"InitializerConfigurationsCreatedFailOpen"}},
	Clause{ID: "init.reference.ignore-timeout", Area: Initializers,
		Source:  "seed 002 Handling fail-open initializers (an Ignore initializer is removed when its timeout is reached); " + initReferenceRef,
		Promise: "An Ignore initializer that does not finish is removed after its timeout T, counted from when it reached the head of the list, within [T, T + slack]; a Warning event says so and the next initializer gets its turn.",
		Specs:   []string{"InitializerIgnoreTimeout"}},
	Clause{ID: "init.reference.fail-timeout", Area: Initializers,
		Source:  "seed 002 Specification (Fail: the apiserver returns a timeout error; deviation: the create has returned, so the pod fails); " + initReferenceRef,
		Promise: "A Fail initializer that does not finish fails the pod after its timeout T, within [T, T + slack]: phase Failed, reason InitializerTimeout, condition Initialized=False, a Warning event; the remaining gates stay, so the pod is never bound.",
		Specs:   []string{"InitializerFailTimeout"}},
	Clause{ID: "init.reference.read-repair", Area: Initializers,
		Source:  "seed 002 Implementation of fail open initializers (read repair after a global initializer timeout); " + initReferenceRef,
		Promise: "A pod whose head initializer is still there when the pod is the global initializer timeout old has that initializer removed, although the initializer's own longer timeout has not run out; a Warning event with reason InitializerGlobalTimeout says so.",
		Specs:   []string{"InitializerReadRepair"}},
	Clause{ID: "init.reference.propagation", Area: Initializers,
		Source:  "seed 002 Synchronization (a consistent read every 1s; a change becomes effective in 1s); " + initReferenceRef,
		Promise: "Creating an InitializerConfiguration, changing its rules and deleting it each apply to every pod created more than the propagation bound (1 s plus slack) later.",
		Specs:   []string{"InitializerConfigurationPropagation"}},
	Clause{ID: "init.reference.loading-block", Area: Initializers,
		Source:  "seed 002 Synchronization (without a successful read in the last 5s, block all incoming requests); " + initReferenceRef,
		Promise: "When the configurations can no longer be read, pod creations are blocked with reason LoadingConfiguration 5 s after the last successful read, and unblocked within the propagation bound once reading works again.",
		Specs:   []string{"InitializerLoadingConfigurationBlock"}},
	Clause{ID: "init.reference.update-mutators-skipped", Area: Initializers,
		Source:  "seed 000 Requirements for extensible admission (during initialization the update admission mutators shouldn't run); " + initReferenceRef,
		Promise: "A mutating webhook for pod updates is not called for the updates that initialize a pod (gate removals, the implementation's own), and is called for the pod's updates once it is initialized.",
		Specs:   []string{"UpdateMutatorsSkippedDuringInitialization"}},
)
