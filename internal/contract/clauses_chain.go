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
		Promise: "A create in a namespace that does not exist is refused with 404 before any webhook is called; so is a create in a namespace deleted moments ago, once it is gone.",
		Specs:   []string{"NamespaceLifecycleBeforeWebhooks"}},
	Clause{ID: "order.chain.namespace-lifecycle-immortal", Area: Ordering, Source: "seed 003 NamespaceLifecycle; kubernetes.io Admission Controllers, NamespaceLifecycle (\"prevents deletion of three system reserved namespaces default, kube-system, kube-public\"); k8s.io/apiserver v0.37.2 pkg/admission/plugin/namespace/lifecycle/admission.go Lifecycle.Admit",
		Promise: "The deletion of the namespaces default, kube-system and kube-public is refused, a dry run too, with 403 Forbidden \"namespaces \"<name>\" is forbidden: this namespace may not be deleted\"; another namespace's dry-run deletion is admitted.",
		Specs:   []string{"ImmortalNamespaces"}},
	Clause{ID: "order.chain.limit-ranger-constraints", Area: Ordering, Source: "seed 003 compiled admission plugins (LimitRanger); kubernetes.io Limit Ranges; k8s.io/api core/v1 LimitRangeItem; k8s.io/kubernetes v1.37.2 plugin/pkg/admission/limitranger/admission.go PodValidateLimitFunc, PersistentVolumeClaimValidateLimitFunc",
		Promise: "LimitRanger refuses with 403 Forbidden, naming the constraint, a pod whose container or init container breaks its type Container min, max or maxLimitRequestRatio, a pod whose containers' and sidecars' limits add up above its type Pod max, a pod whose summed (or pod-level) requests and limits break its type Pod min, max or maxLimitRequestRatio, a request or limit left unset included, a PersistentVolumeClaim whose storage request is below its type PersistentVolumeClaim min or above its max (or that requests no amount of a resource the max names), and a pods/resize that takes a container past its constraints; the update of an object being deleted is not judged; every broken constraint is listed; a pod, claim or resize within them all is admitted; defaults are written into init containers too and listed in the kubernetes.io/limit-ranger annotation.",
		Specs:   []string{"LimitRangerConstraints"}},
	Clause{ID: "order.chain.resource-quota-constraints", Area: Ordering, Source: "seed 003 compiled admission plugins (ResourceQuota); kubernetes.io Resource Quotas (compute resource quota, quota scopes, scopeSelector); k8s.io/api core/v1 ResourceQuotaSpec; k8s.io/apiserver v0.37.2 pkg/admission/plugin/resourcequota/controller.go CheckRequest",
		Promise: "ResourceQuota refuses with 403 Forbidden a pod without the limit a quota tracks (\"failed quota: <q>: must specify limits.cpu for: <container>\"); a quota scoped to BestEffort pods, by scopes or by scopeSelector, refuses a BestEffort pod past it (\"exceeded quota: <q>, requested: pods=1, used: pods=0, limited: pods=0\") and admits a Burstable one; a pods/resize is charged by what it adds and refused when that exceeds the quota; a request no quota tracks (a pod, its resizes, in a namespace whose only quota is on secrets) is admitted uncharged; an update that moves a pod into a quota's scope (activeDeadlineSeconds set, scope Terminating) is charged to that quota (refused while it is full: \"exceeded quota: <q>, requested: pods=1, used: pods=0, limited: pods=0\") and not again to a quota the pod was in already.",
		Specs:   []string{"ResourceQuotaConstraints"}},
	Clause{ID: "order.chain.pod-security-warn-and-workloads", Area: Ordering, Source: "seed 003 compiled admission plugins (PodSecurity); kubernetes.io Pod Security Admission (modes enforce, audit, warn; workload resources and templates); k8s.io/kubernetes v1.37.2 plugin/pkg/admission/security/podsecurity/admission.go Plugin.Validate",
		Promise: "PodSecurity admits a pod breaking the namespace's warn level with a warning \"would violate PodSecurity \"restricted:latest\": ...\" naming what it breaks; a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ReplicationController or PodTemplate whose pod template breaks the enforce level is admitted with that warning, while a pod breaking it is refused.",
		Specs:   []string{"PodSecurityWarnsWorkloads"}},
	Clause{ID: "order.chain.pod-security-judges-mutations", Area: Ordering, Source: "seed 000 Requirements (compiled validating admission plugins must run after mutating admission webhooks)",
		Promise: "PodSecurity validates the pod as mutating webhooks left it: a mutation that breaks the namespace's level is refused (403), one that brings the pod into compliance is admitted.",
		Specs:   []string{"PodSecurityJudgesMutatedPod"}},
)
