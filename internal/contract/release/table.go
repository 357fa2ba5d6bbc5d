package release

// The release table: a decision for every item the pinned Kubernetes has.
// When TestPinnedInventoryIsDecided names an unknown item, read its source
// and add an entry here: the clauses that cover it (write clauses and specs
// first if it changes what admission does), or one sentence saying why the
// admission contract does not need it (OutOfScope) or why the harness
// cannot see it where it runs although the contract would care
// (NotObservable). Remove the entries it calls stale.

// ReviewedGates are the gates the written rule (GateNameRule, AdmissionCode,
// AdmitHandlerCode) misses although they change what admission extensions
// see, each with why. A gate the rule already selects does not belong here
// (SelectGates refuses it).
var ReviewedGates = []ReviewedGate{
	// Gone in 1.38: the feature is permanently on (kubernetes PR 141741).
	{Name: "PodSchedulingReadiness", Until: "1.38", Reason: "scheduling gates are the initializers of seed 002 (init.* clauses); the gate is read by the pod registry and the scheduler, not by admission code"},
}

// ReviewedGate is a gate the written rule misses, for the minors from
// Since (empty: any) to before Until (empty: any).
type ReviewedGate struct {
	Name, Reason, Since, Until string
}

// ReviewedGatesAt are the reviewed gates of Kubernetes version v, name to
// reason.
func ReviewedGatesAt(v string) map[string]string {
	out := map[string]string{}
	for _, g := range ReviewedGates {
		if (Entry{Since: g.Since, Until: g.Until}).For(v) {
			out[g.Name] = g.Reason
		}
	}
	return out
}

func mapped(k Kind, name string, clauses ...string) Entry {
	return Entry{Kind: k, Name: name, Clauses: clauses}
}

func outOfScope(k Kind, name, why string) Entry { return Entry{Kind: k, Name: name, OutOfScope: why} }

func notObservable(k Kind, name, why string) Entry {
	return Entry{Kind: k, Name: name, NotObservable: why}
}

// since bounds e to the minors from m on: the release that adds an item
// or changes what it does.
func since(m string, e Entry) Entry { e.Since = m; return e }

// until bounds e to the minors before m: the release that removes an item
// or changes what it does.
func until(m string, e Entry) Entry { e.Until = m; return e }

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Clauses shared by both admission webhook plugins.
var webhookClauses = []string{
	"review.uid.per-call", "review.target", "review.request-target", "review.subresource", "review.name.generate-name",
	"review.namespace", "review.operation", "review.user-info", "review.object", "review.old-object", "review.options",
	"review.dry-run", "review.version-negotiation",
	"answer.denial.status", "answer.denial.fallbacks", "answer.warnings", "answer.audit-annotations", "answer.uid-must-match",
	"failure.fail-rejects", "failure.ignore-admits", "failure.unready-webhook-blocks-only-its-scope", "failure.timeout-bounds-call",
	"failure.wrong-uid-fails-the-call", "failure.wrong-version-fails-the-call", "failure.fail-open-observable",
	"matching.operations", "matching.resources-wildcards", "matching.scope", "matching.namespace-selector",
	"matching.namespace-selector-on-namespaces", "matching.namespace-selector-cluster-scoped", "matching.custom-resources", "matching.object-selector-subresources", "matching.namespace-selector-follows-labels",
	"matching.object-selector-old-or-new", "matching.match-policy", "matching.match-conditions", "matching.configurations-exempt",
	"matching.dry-run",
	"config.default.failure-policy", "config.default.timeout", "config.default.match-policy", "config.default.selectors",
	"config.default.rule-scope", "config.validate.accepts-valid",
	"propagation.webhook-configuration-change",
}

// staticClauses are the clauses of manifest-based admission configuration.
var staticClauses = []string{
	"static.reserved-suffix", "static.enforced-at-start", "static.called-for-configurations", "static.not-listed",
	"static.mutating-first", "static.reload-propagation", "static.invalid-reload-keeps-previous", "static.invalid-dir-refuses-start",
}

var mutatingPolicyClauses = []string{
	"order.mutating-policy-before-webhooks", "policy.mutating.patch-types", "policy.mutating.apply-configuration-schema", "policy.mutating.order",
	"policy.mutating.failure-policy", "policy.mutating.reinvocation", "config.policy-default.reinvocation-required",
	"config.policy-validate.no-delete-mutation",
}

var initializerClauses = []string{
	"init.gates-only-at-create", "init.gate-names-validated", "init.gated-pod-not-bound", "init.gates-removed-any-order",
	"init.gated-pod-scheduling-tighten-only",
}

// conditionalAuthzClauses are the clauses of conditional authorization at
// admission (1.38, KEP-5681).
var conditionalAuthzClauses = []string{
	"authz.conditional.enforced-on-object", "authz.conditional.sees-mutated-object", "authz.conditional.order",
	"authz.conditional.denial", "authz.conditional.dry-run", "authz.conditional.fail-closed",
}

var kubeletRejectionClauses = []string{"node.rejection-reason", "node.rejection-phase", "node.rejection-message", "node.rejection-event"}

// nodeRestriction is the reason for the gates NodeRestriction reads.
func nodeRestriction(what string) string {
	return "NodeRestriction reads it to limit what a kubelet may write about " + what + ": node authorization, not a promise about admission extensions."
}

const (
	resizeOnly      = "the kubelet's resize handler reads it to judge in-place resizes of running pods (reported in the pod's resize status), not the admission of a pod to a node"
	notShuttingDown = "the node shutdown handler rejects pods (Reason NodeShutdown) only while a node shuts down under systemd's inhibitor lock, and hollow kubelets never shut down, so the harness cannot show it"
)

// Table decides every item of the inventory.
var Table = []Entry{
	// Feature gates.
	since("1.37", outOfScope(Gate, "APIServerWebhookAuthenticationToken", "Alpha and off: lets the apiserver mint the tokens it presents to webhooks (KEP-6060); how a webhook authenticates its caller is deployment security, not what admission sends or does with the answer.")),
	outOfScope(Gate, "AllowInsecureKubeletCertificateSigningRequests", "Deprecated and off: "+nodeRestriction("its own CertificateSigningRequests")),
	since("1.37", outOfScope(Gate, "CSIVolumeHealth", "Alpha: "+nodeRestriction("the health of its volumes"))),
	outOfScope(Gate, "ClusterTrustBundle", "ClusterTrustBundleAttest reads it to check who may attest for a signer; certificate issuance policy of a compiled-in plugin no clause orders against webhooks."),
	outOfScope(Gate, "CloudControllerManagerWebhook", "The cloud-controller-manager's own webhook server, not kube-apiserver admission: selected by its name only."),
	since("1.37", until("1.38", outOfScope(Gate, "CompositePodGroup", "Alpha: the Priority plugin resolves a composite pod group's priority; scheduling policy of a compiled-in plugin."))),
	since("1.38", outOfScope(Gate, "CompositePodGroup", "Beta and off in 1.38: the Priority plugin resolves a composite pod group's priority and PodGroupProtection guards composite pod groups in use; scheduling policy of compiled-in plugins.")),
	since("1.38", mapped(Gate, "ConditionalAuthorization", conditionalAuthzClauses...)),
	since("1.36", outOfScope(Gate, "DRAExtendedResource", "Decides which extended resources the kubelet's fit predicate counts (not those a DRA claim backs): resource accounting, while how any fit failure is reported is node.rejection-*.")),
	since("1.37", until("1.38", outOfScope(Gate, "DRANodeAllocatableResources", "Alpha and off: makes NodeDeclaredFeatureValidator check ResourceSlices publishing node-allocatable DRA devices; device publication, not pod admission."))),
	since("1.38", outOfScope(Gate, "DRANodeAllocatableResources", "Alpha and off: makes NodeDeclaredFeatureValidator check ResourceSlices publishing node-allocatable DRA devices and, from 1.38, the kubelet's fit predicate count their resources: device publication and resource accounting, while how any fit failure is reported is node.rejection-*.")),
	// Removed in 1.38: DRA is always on (kubernetes PR 141946).
	until("1.38", outOfScope(Gate, "DynamicResourceAllocation", nodeRestriction("its ResourceSlices"))),
	since("1.37", mapped(Gate, "ExcludeAdmissionWebhookVirtualResources", "matching.review-resources-excluded", "matching.review-resources-warning")),
	since("1.36", until("1.37", outOfScope(Gate, "GenericWorkload", "Alpha and off in 1.36: JobValidation, PodGroupWorkloadExists and PodGroupProtection handle Jobs, PodGroups and Workloads of gang scheduling; workload scheduling, in compiled-in plugins no clause orders against webhooks."))),
	since("1.37", outOfScope(Gate, "GenericWorkload", "Beta and off: PodGroupProtection and Priority handle Workload and PodGroup objects; workload scheduling, in compiled-in plugins no clause orders against webhooks.")),
	notObservable(Gate, "GracefulNodeShutdown", "Its admission side: "+notShuttingDown+"."),
	notObservable(Gate, "GracefulNodeShutdownBasedOnPodPriority", "Its admission side: "+notShuttingDown+"."),
	// Removed in 1.38 (GA and locked since 1.35): PodResizeValidator no longer reads it.
	since("1.36", until("1.38", mapped(Gate, "InPlacePodVerticalScaling", "node.declared-features.capacity"))),
	// 1.35 and 1.36 only: the sleep action of lifecycle hooks.
	until("1.37", outOfScope(Gate, "PodLifecycleSleepAction", "GA and locked: the kubelet's lifecycle hook runner (pkg/kubelet/lifecycle/handlers.go, beside the admit handlers) reads it to run the Sleep action of PreStop and PostStart hooks, which is not pod admission.")),
	since("1.36", outOfScope(Gate, "InPlacePodVerticalScalingExclusiveCPUs", "Alpha: "+resizeOnly+".")),
	since("1.36", outOfScope(Gate, "InPlacePodVerticalScalingExclusiveMemory", "Alpha: "+resizeOnly+".")),
	since("1.37", outOfScope(Gate, "InPlacePodVerticalScalingMemoryBackedVolumes", "Alpha: "+resizeOnly+", and the eviction manager's accounting of memory-backed volumes.")),
	since("1.38", outOfScope(Gate, "KubeAPIServerWorkloadsTrust", "Alpha and off: the ServiceAccount plugin projects the apiserver's serving trust from ClusterTrustBundles instead of the kube-root-ca.crt ConfigMap into automounted token volumes (KEP-6283); compiled-in defaulting of pod volumes no clause depends on.")),
	outOfScope(Gate, "KubeletSeparateDiskGC", "The eviction manager reads it for its image filesystem accounting; node-pressure eviction, not a promise about pod admission."),
	since("1.36", mapped(Gate, "ManifestBasedAdmissionControlConfig", staticClauses...)),
	mapped(Gate, "MutatingAdmissionPolicy", mutatingPolicyClauses...),
	mapped(Gate, "NodeDeclaredFeatures", "node.declared-features.resize", "node.declared-features.kubelet"),
	outOfScope(Gate, "PodCertificateRequest", nodeRestriction("its pods' PodCertificateRequests")),
	// Gone in 1.38.
	since("1.37", until("1.38", outOfScope(Gate, "PodGroupPreemptionPolicy", "Alpha and off: the Priority plugin resolves a pod group's preemption policy; scheduling policy."))),
	until("1.38", outOfScope(Gate, "PodLevelResources", "Makes LimitRanger and the kubelet's pod features handler count pod-level resources: resource accounting, while LimitRanger's place around webhooks (order.compiled-plugins-around-webhooks) does not depend on it.")),
	since("1.38", outOfScope(Gate, "PodLevelResources", "Makes LimitRanger, the kubelet's pod features handler and, from 1.38, its fit predicate count pod-level resources: resource accounting, while LimitRanger's place around webhooks (order.compiled-plugins-around-webhooks) and how a fit failure is reported (node.rejection-*) do not depend on it.")),
	// Removed in 1.38: scheduling gates are always on (kubernetes PR 141741); the init.* clauses hold without it.
	until("1.38", mapped(Gate, "PodSchedulingReadiness", initializerClauses...)),
	outOfScope(Gate, "PodTopologyLabelsAdmission", "Turns on PodTopologyLabels, which copies a node's topology labels to a pod on pods/binding; a compiled-in mutation no webhook clause depends on."),
	until("1.38", outOfScope(Gate, "RecoverVolumeExpansionFailure", nodeRestriction("the resize status of its claims"))),
	outOfScope(Gate, "ServiceAccountNodeAudienceRestriction", nodeRestriction("the audiences of its pods' tokens")),
	// Removed in 1.38 (GA and locked): the kubelet's predicate always checks it.
	until("1.38", mapped(Gate, "SupplementalGroupsPolicy", "node.rejection-reason")),
	outOfScope(Gate, "TaintTolerationComparisonOperators", "Alpha and off: lets tolerations compare values in the kubelet's taint predicate and eviction handler; which tolerations match is scheduling API, while how an untolerated taint is reported is node.rejection-*."),
	outOfScope(Gate, "VolumeAttributesClass", "StorageObjectInUseProtection adds its finalizer to VolumeAttributesClasses; storage, not admission extensions."),
	since("1.37", mapped(Gate, "WebhookRoundTripLoadBalancing", "failure.service-balanced-per-request")),
	// 1.36 only: gang scheduling of Jobs, reworked in 1.37.
	since("1.36", until("1.37", outOfScope(Gate, "WorkloadAwarePreemption", "Alpha and off: the Priority plugin resolves a PodGroup's priority from its class; scheduling policy of a compiled-in plugin."))),
	since("1.36", until("1.37", outOfScope(Gate, "WorkloadWithJob", "Alpha and off: JobValidation refuses changing the parallelism of a Job whose gang-scheduled PodGroup exists; workload scheduling in a compiled-in plugin."))),
	notObservable(Gate, "WindowsGracefulNodeShutdown", "Its admission side is the Windows node shutdown handler's, and the harness's nodes are Linux hollow kubelets that never shut down."),

	// kube-apiserver admission plugins.
	outOfScope(APIServerPlugin, "AlwaysAdmit", "Deprecated and off: admits every request, adding nothing a webhook or policy could observe."),
	outOfScope(APIServerPlugin, "AlwaysDeny", "Deprecated and off: refuses every request, so a cluster running it has nothing to test."),
	since("1.38", mapped(APIServerPlugin, "AuthorizationConditionsEnforcer", conditionalAuthzClauses...)),
	outOfScope(APIServerPlugin, "AlwaysPullImages", "Off: forces imagePullPolicy Always, a compiled-in mutation no clause orders against webhooks."),
	outOfScope(APIServerPlugin, "CertificateApproval", "Checks who may approve a CertificateSigningRequest: authorization of certificate issuance."),
	outOfScope(APIServerPlugin, "CertificateSigning", "Checks who may sign a CertificateSigningRequest: authorization of certificate issuance."),
	outOfScope(APIServerPlugin, "CertificateSubjectRestriction", "Refuses CertificateSigningRequests for the system:masters group: certificate issuance policy."),
	outOfScope(APIServerPlugin, "ClusterTrustBundleAttest", "Checks who may attest a ClusterTrustBundle for a signer: certificate issuance policy."),
	outOfScope(APIServerPlugin, "DefaultIngressClass", "Defaults an Ingress's class: compiled-in defaulting no clause depends on."),
	outOfScope(APIServerPlugin, "DefaultStorageClass", "Defaults a claim's storage class: compiled-in defaulting no clause depends on."),
	outOfScope(APIServerPlugin, "DefaultTolerationSeconds", "Adds the default not-ready and unreachable tolerations to pods: compiled-in defaulting no clause depends on."),
	outOfScope(APIServerPlugin, "DenyServiceExternalIPs", "Off: refuses Services with external IPs, a compiled-in network policy."),
	outOfScope(APIServerPlugin, "EventRateLimit", "Off: rate-limits Event writes, not the admission of other objects."),
	outOfScope(APIServerPlugin, "ExtendedResourceToleration", "Off: adds tolerations for extended-resource taints, compiled-in scheduling defaulting."),
	outOfScope(APIServerPlugin, "ImagePolicyWebhook", "Off: a compiled-in plugin calling an ImageReview backend named in its own config file, not the dynamic admission webhook API the contract covers."),
	since("1.36", until("1.37", outOfScope(APIServerPlugin, "JobValidation", "Refuses changing the parallelism of a Job referencing a gang-scheduled PodGroup (with the alpha GenericWorkload and WorkloadWithJob gates): workload scheduling, in a compiled-in plugin no clause orders against webhooks."))),
	outOfScope(APIServerPlugin, "LimitPodHardAntiAffinityTopology", "Off: restricts pod anti-affinity topology keys, a compiled-in scheduling policy."),
	mapped(APIServerPlugin, "LimitRanger", "order.compiled-plugins-around-webhooks"),
	mapped(APIServerPlugin, "MutatingAdmissionPolicy", mutatingPolicyClauses...),
	mapped(APIServerPlugin, "MutatingAdmissionWebhook", join(webhookClauses, []string{
		"order.mutate-before-validate", "order.mutating-configurations-by-name", "order.mutating-webhooks-listed-order",
		"order.reinvocation-if-needed", "order.chain.denial-stops", "order.delete-reaches-admission", "order.connect-reaches-admission",
		"answer.patch-needs-patch-type", "answer.patch-must-apply", "answer.patch-on-delete", "answer.patch-then-strategy",
		"config.default.reinvocation",
	})...),
	outOfScope(APIServerPlugin, "NamespaceAutoProvision", "Off: creates a missing namespace instead of refusing the request; the default chain refuses (NamespaceLifecycle, order.chain.namespace-lifecycle-first)."),
	outOfScope(APIServerPlugin, "NamespaceExists", "Off: refuses requests in missing namespaces, which NamespaceLifecycle (on by default) already does."),
	mapped(APIServerPlugin, "NamespaceLifecycle", "order.chain.namespace-lifecycle-first"),
	mapped(APIServerPlugin, "NodeDeclaredFeatureValidator", "node.declared-features.resize"),
	outOfScope(APIServerPlugin, "NodeRestriction", "Limits what a kubelet may write about its own node and pods (off in the flags' defaults, on in real clusters): node authorization, not a promise about admission extensions."),
	outOfScope(APIServerPlugin, "OwnerReferencesPermissionEnforcement", "Off: checks the permission to set blockOwnerDeletion, an authorization check."),
	outOfScope(APIServerPlugin, "PersistentVolumeClaimResize", "Refuses resizing a claim whose class does not allow it: storage policy."),
	since("1.36", until("1.37", outOfScope(APIServerPlugin, "PodGroupWorkloadExists", "Refuses a PodGroup whose Workload does not exist (with the alpha GenericWorkload gate): workload scheduling bookkeeping."))),
	since("1.36", outOfScope(APIServerPlugin, "PodGroupProtection", "Adds a protection finalizer to PodGroups in use: workload scheduling bookkeeping.")),
	outOfScope(APIServerPlugin, "PodNodeSelector", "Off: merges a namespace's node selector into pods, a compiled-in scheduling policy."),
	since("1.36", mapped(APIServerPlugin, "PodResizeValidator", "node.declared-features.capacity")),
	mapped(APIServerPlugin, "PodSecurity", "order.chain.pod-security-judges-mutations"),
	outOfScope(APIServerPlugin, "PodTolerationRestriction", "Off: merges and limits tolerations per namespace, a compiled-in scheduling policy."),
	outOfScope(APIServerPlugin, "PodTopologyLabels", "Copies a node's topology labels to a pod on pods/binding; a compiled-in mutation no webhook clause depends on."),
	outOfScope(APIServerPlugin, "Priority", "Resolves priorityClassName into a pod's priority: compiled-in defaulting no clause depends on."),
	mapped(APIServerPlugin, "ResourceQuota", "order.compiled-plugins-around-webhooks"),
	outOfScope(APIServerPlugin, "RuntimeClass", "Adds a RuntimeClass's overhead and scheduling to pods: compiled-in defaulting no clause depends on."),
	outOfScope(APIServerPlugin, "ServiceAccount", "Sets a pod's service account and token volume: compiled-in defaulting no clause depends on."),
	outOfScope(APIServerPlugin, "StorageObjectInUseProtection", "Adds protection finalizers to volumes and claims: storage bookkeeping."),
	outOfScope(APIServerPlugin, "TaintNodesByCondition", "Taints new nodes not-ready: node lifecycle bookkeeping."),
	mapped(APIServerPlugin, "ValidatingAdmissionPolicy",
		"order.validating-policy-after-mutating-webhooks", "policy.deny.status", "policy.deny.reason", "policy.warn", "policy.audit.silent",
		"policy.audit.validation-failure", "policy.audit.several-bindings", "policy.validation-actions.exclusive",
		"policy.failure-policy.runtime-error", "policy.failure-policy.default", "policy.failure-policy.configuration-error",
		"policy.failure-policy.error-follows-actions", "policy.compile-errors-refused", "policy.params.by-name", "policy.params.namespace",
		"policy.params.selector", "policy.params.cluster-scoped", "policy.params.not-found-allow", "policy.params.not-found-deny",
		"policy.variables.composition", "policy.variables.lazy", "policy.request-variables", "policy.message-expression",
		"policy.message-expression.fallback", "policy.message.first-failure", "policy.audit-annotations.key",
		"policy.audit-annotations.omitted", "policy.match.conditions", "policy.match.resource-rules",
		"policy.match.exclude-resource-rules", "policy.match.policy-selectors", "policy.match.binding-selectors",
		"policy.match.match-policy", "config.policy-default.failure-policy", "config.policy-default.match-resources",
		"config.policy-validate.accepts-valid", "config.policy-validate.required", "config.policy-validate.binding",
		"config.policy-validate.param-ref", "config.policy-validate.expressions", "propagation.policy-change"),
	mapped(APIServerPlugin, "ValidatingAdmissionWebhook", join(webhookClauses, []string{
		"order.mutate-before-validate", "order.validators-see-final-object", "order.validators-unordered-parallel",
		"order.validate-after-strategy", "order.invalid-object-never-validated", "order.delete-reaches-admission",
		"order.connect-reaches-admission", "order.chain.denial-stops", "answer.validating-no-patch",
	})...),

	// The kubelet's pod admit chain.
	since("1.36", outOfScope(KubeletHandlerKind, "allocation.NewPodResizesAdmitHandler", "It admits every new pod and judges only in-place resizes of running pods (reported in the resize status, not as a rejection).")),
	notObservable(KubeletHandlerKind, "eviction.NewManager", "It rejects pods (Reason Evicted) only under node memory or disk pressure, which a hollow kubelet's fake cadvisor never reports."),
	mapped(KubeletHandlerKind, "sysctl.NewAllowlist", kubeletRejectionClauses...),
	notObservable(KubeletHandlerKind, "klet.containerManager.GetAllocateResourcesPodAdmitHandler", "Hollow kubelets run a stub container manager whose allocation handler admits every pod: TopologyAffinityError, SMTAlignmentError and device UnexpectedAdmissionError need real CPU, memory, topology and device managers (the reference node plugin host wraps this seam, node.plugins.*)."),
	mapped(KubeletHandlerKind, "lifecycle.NewPredicateAdmitHandler", kubeletRejectionClauses...),
	mapped(KubeletHandlerKind, "lifecycle.NewAppArmorAdmitHandler", kubeletRejectionClauses...),
	outOfScope(KubeletHandlerKind, "lifecycle.NewPodFeaturesAdmitHandler", "A version-skew guard: it rejects pod-level resources only on a kubelet whose PodLevelResources gate is off, and how any rejection is reported is node.rejection-*."),
	mapped(KubeletHandlerKind, "lifecycle.NewDeclaredFeaturesAdmitHandler", "node.declared-features.kubelet"),
	notObservable(KubeletHandlerKind, "nodeshutdown.NewManager", "It rejects pods (Reason NodeShutdown) only while the node shuts down under systemd's inhibitor lock, and hollow kubelets never shut down."),
}
