package contract

// The admission chain itself (seeds 000, 001, 003): the first denial ends
// it, and the compiled plugins around the webhooks. kube-apiserver v1.37's
// chain: k8s.io/kubernetes v1.37.2 pkg/kubeapiserver/options/plugins.go
// AllOrderedPlugins, k8s.io/apiserver pkg/admission/chain.go.

var _ = Register(
	Clause{ID: "order.chain.denial-stops", Area: Ordering, Source: "seed 003 chainAdmissionHandler.Admit (returns immediately on first error); seed 001 (if at any step there is an error, the request is canceled)",
		Promise: "A mutating webhook's denial ends admission: webhooks listed after it and every validating webhook are never called, and nothing is stored; a validating denial stores nothing.",
		Specs:   []string{"ChainDenialStopsLaterPlugins"}},
	Clause{ID: "order.chain.namespace-lifecycle-first", Area: Ordering, Source: "seed 003 NamespaceLifecycle; kube-apiserver AllOrderedPlugins (NamespaceLifecycle first)",
		Promise: "A create in a namespace that does not exist is refused with 404 before any webhook is called.",
		Specs:   []string{"NamespaceLifecycleBeforeWebhooks"}},
	Clause{ID: "order.chain.namespace-lifecycle-immortal", Area: Ordering, Source: "seed 003 NamespaceLifecycle; kubernetes.io Admission Controllers, NamespaceLifecycle (\"prevents deletion of three system reserved namespaces default, kube-system, kube-public\"); k8s.io/apiserver v0.37.2 pkg/admission/plugin/namespace/lifecycle/admission.go Lifecycle.Admit",
		Promise: "The deletion of the namespaces default, kube-system and kube-public is refused, a dry run too, with 403 Forbidden \"namespaces \"<name>\" is forbidden: this namespace may not be deleted\"; another namespace's dry-run deletion is admitted.",
		Specs:   []string{"ImmortalNamespaces"}},
	Clause{ID: "order.chain.pod-security-judges-mutations", Area: Ordering, Source: "seed 000 Requirements (compiled validating admission plugins must run after mutating admission webhooks)",
		Promise: "PodSecurity validates the pod as mutating webhooks left it: a mutation that breaks the namespace's level is refused (403), one that brings the pod into compliance is admitted.",
		Specs:   []string{"PodSecurityJudgesMutatedPod"}},
)
