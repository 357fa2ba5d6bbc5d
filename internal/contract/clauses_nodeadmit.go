package contract

// Node-side pod admission (seed 004, KEP-2823). The node.rejection-* clauses
// are the upstream kubelet's (k8s.io/kubernetes v1.37.2 pkg/kubelet,
// pkg/kubelet/lifecycle): a pod bound to a node it cannot run on is rejected
// with a specific Reason, and KEP-2823 builds on that. KEP-2823's node-local
// admission plugins have no upstream implementation: the node.plugins.*
// clauses are provided only by the project's reference plugin host
// (reference/nodeadmission), and their specs are in the reference profile.

const (
	nodeKubeletRef          = "seed 004 KEP-2823 Summary (rejected pods enter a terminated state, are not deleted, and keep a specific Reason); the kubelet's pod admission (pkg/kubelet)"
	nodeDeclaredFeaturesRef = "KEP-5328 node declared features (k8s.io/component-helpers/nodedeclaredfeatures; Node.status.declaredFeatures)"
	nodePluginsRef          = "reference plugin host only (reference/nodeadmission); KEP-2823 plugins are not in upstream Kubernetes"
)

// nodeKubeletRejectionSpecs are the specs of the kubelet's own rejections;
// each checks the phase, Reason, message and event of its rejection.
var nodeKubeletRejectionSpecs = []string{
	"KubeletRejectsAppArmorWithoutSupport",
	"KubeletRejectsNodeAffinity",
	"KubeletRejectsNodePorts",
	"KubeletRejectsOutOfCPU",
	"KubeletRejectsOutOfEphemeralStorage",
	"KubeletRejectsOutOfExtendedResource",
	"KubeletRejectsOutOfMemory",
	"KubeletRejectsOutOfPods",
	"KubeletRejectsPodOSNotSupported",
	"KubeletRejectsPodOSSelectorMismatch",
	"KubeletRejectsSupplementalGroupsPolicyNotSupported",
	"KubeletRejectsSysctlForbidden",
	"KubeletRejectsTaintToleration",
}

var _ = Register(
	// The kubelet's own rejections.
	Clause{ID: "node.rejection-reason", Area: NodeAdmission, Optional: "NodeAdmission",
		Source:  nodeKubeletRef + ", pkg/kubelet/lifecycle/predicate.go",
		Promise: "A pod bound to a node that cannot run it is rejected by the kubelet with the Reason of the unmet requirement: OutOfcpu, OutOfmemory, OutOfephemeral-storage, OutOfpods, OutOf<extended resource>, NodeAffinity, NodePorts, TaintToleration (an untolerated NoExecute taint), PodOSNotSupported, PodOSSelectorNodeLabelDoesNotMatch, SysctlForbidden, AppArmor, SupplementalGroupsPolicyNotSupported; a pod meeting them is admitted (a pod setting only safe sysctls, labelled with the node's own operating system, asking for supplementalGroupsPolicy Merge, or asking for an extended resource the node does not advertise at all); a critical pod (priorityClassName system-node-critical) short of a resource is admitted by preempting lower-priority pods, and rejected with Reason UnexpectedAdmissionError (\"Unexpected error while attempting to recover from admission failure: preemption: ...\") when preempting them all could not free enough.",
		Specs:   nodeKubeletRejectionSpecs},
	Clause{ID: "node.rejection-phase", Area: NodeAdmission, Optional: "NodeAdmission",
		Source:  nodeKubeletRef,
		Promise: "A pod the kubelet rejects ends in phase Failed with the rejection's Reason, and is left in place, not deleted by the node (the control plane's taint eviction may still delete a pod that does not tolerate a NoExecute taint).",
		Specs:   nodeKubeletRejectionSpecs},
	Clause{ID: "node.rejection-message", Area: NodeAdmission, Optional: "NodeAdmission",
		Source:  nodeKubeletRef,
		Promise: "A rejected pod's status.message is \"Pod was rejected: \" followed by the reason's message.",
		Specs:   nodeKubeletRejectionSpecs},
	Clause{ID: "node.rejection-event", Area: NodeAdmission, Optional: "NodeAdmission",
		Source:  nodeKubeletRef,
		Promise: "The kubelet records one Warning event about a rejected pod, with the rejection's Reason, from the pod's node.",
		Specs:   nodeKubeletRejectionSpecs},
	Clause{ID: "node.rejection-boundary", Area: NodeAdmission, Optional: "NodeAdmission",
		Source: nodeKubeletRef + ", pkg/kubelet/lifecycle/predicate.go (InsufficientResourceError) over pkg/scheduler/framework/plugins/noderesources/fit.go (Fits) " +
			"and k8s.io/component-helpers/resource PodRequests, k8s.io/kubernetes v1.37.2",
		Promise: "A pod bound to a node is admitted when, for CPU, memory, ephemeral storage and each extended resource it asks for, its requests (its containers' and sidecars' summed, or its largest regular init container's plus the sidecars started before it if more, plus its overhead) are at most the node's allocatable less the requests of the non-terminal pods the node runs, and the node runs fewer pods than its allocatable pods; one unit more (1m CPU, 1 byte, 1 extended unit, one pod too many) is rejected with Reason OutOf<resource> and the message \"Pod was rejected: Node didn't have enough resource: <resource>, requested: <n>, used: <n>, capacity: <n>\".",
		Specs:   []string{"KubeletAdmitsUpToAllocatable", "KubeletAdmitsUpToPodCapacity"}},
	Clause{ID: "node.accounting", Area: NodeAdmission, Optional: "NodeAdmission",
		Source: nodeKubeletRef + ", pkg/kubelet/kubelet.go (HandlePodAdditions admits against GetActivePods) and pkg/kubelet/kubelet_pods.go " +
			"(filterOutInactivePods), k8s.io/kubernetes v1.37.2",
		Promise: "The kubelet counts against a node's allocatable resources and pods only the pods it admitted and has not finished with: a pod it rejected holds nothing, a pod that finished (phase Failed after running past its activeDeadlineSeconds) holds nothing within the ObjectState bound (30 s by default) of being reported finished, and a deleted pod holds nothing once it has left the API (a graceful deletion ends with the kubelet removing the pod; a deletion with grace period 0 reaches the kubelet before any pod created after it).",
		Specs:   []string{"KubeletReleasesRequests", "KubeletAdmitsUpToPodCapacity"}},

	// Node declared features (NodeDeclaredFeatures, GA in 1.37): what a node
	// publishes in status.declaredFeatures, the apiserver's and the
	// kubelet's checks of pods and resizes against it.
	Clause{ID: "node.declared-features.resize", Area: NodeAdmission, Optional: "NodeDeclaredFeatures",
		Source:  nodeDeclaredFeaturesRef + "; plugin/pkg/admission/nodedeclaredfeatures (NodeDeclaredFeatureValidator, on by default)",
		Promise: "A resize through pods/resize that needs a feature its pod's node does not list in status.declaredFeatures (a change of pod-level resources needs InPlacePodLevelResourcesVerticalScaling) is refused with 403 Forbidden naming the feature and the node, the pod left unchanged; once the node declares the feature, the same resize is admitted.",
		Specs:   []string{"ResizeNeedsNodeDeclaredFeature"}},
	Clause{ID: "node.declared-features.capacity", Area: NodeAdmission, Optional: "NodeDeclaredFeatures",
		Source:  nodeDeclaredFeaturesRef + "; plugin/pkg/admission/podresize (PodResizeValidator, on by default)",
		Promise: "A resize through pods/resize whose CPU or memory requests exceed the node's allocatable is refused with 403 Forbidden, a status cause of type NodeCapacity and a message \"node didn't have enough allocatable resources: ...\" naming every resource over (cpu, memory, joined by '; '), the pod left unchanged; a resize within the allocatable is admitted, and the node allocates it (the container status reports the new request as allocated, with no PodResizePending condition); the resize of a pod bound to a node that does not exist is refused with 403 Forbidden \"node \"<name>\" not found\", unless it changes nothing (then it is admitted).",
		Specs:   []string{"ResizeBeyondNodeAllocatableRefused"}},
	Clause{ID: "node.os-label-not-linux", Area: NodeAdmission, Optional: "NodeDeclaredFeatures",
		Source:  nodeDeclaredFeaturesRef + "; plugin/pkg/admission/podresize (validateLinuxNode); " + nodeKubeletRef + ", pkg/kubelet/lifecycle/predicate.go (rejectPodAdmissionBasedOnOSSelector)",
		Promise: "On a node labelled kubernetes.io/os windows, a resize through pods/resize is refused with 403 Forbidden \"pod resize is only supported on linux nodes, node \"<name>\" is \"windows\"\" and a status cause of type UnsupportedPlatform, the pod left unchanged; the node's kubelet judges a pod's kubernetes.io/os label against the operating system it runs, not the node's label, and admits a pod labelled linux.",
		Specs:   []string{"NodeOSLabelNotLinux"}},
	Clause{ID: "node.declared-features.kubelet", Area: NodeAdmission, Optional: "NodeDeclaredFeatures",
		Source:  nodeDeclaredFeaturesRef + "; pkg/kubelet/lifecycle/handlers.go (declaredFeaturesAdmitHandler)",
		Promise: "A pod bound to a node whose kubelet lacks a feature the pod needs (a RestartAllContainers restart rule needs RestartAllContainersOnContainerExits) is rejected by the kubelet: phase Failed, Reason PodFeatureUnsupported, message \"Pod was rejected: Pod requires node features that are not available: <features>\", one Warning event with that Reason, the pod left in place.",
		Specs:   []string{"KubeletRejectsPodFeatureUnsupported"}},

	// KEP-2823's node-local plugins: the reference plugin host only.
	Clause{ID: "node.plugins.rejection-keeps-reason", Area: NodeAdmission,
		Source:  "seed 004 KEP-2823 Design (plugins return AdmitResult{Admit, Reason, Message}); " + nodePluginsRef,
		Promise: "A pod a node admission plugin (shell, grpc or socket) rejects fails with the plugin's Reason, the plugin's Message after \"Pod was rejected: \" and a Warning event with that Reason, and is not deleted.",
		Specs:   []string{"NodePluginRejectionKeepsReasonAndMessage"}},
	Clause{ID: "node.plugins.all-admit", Area: NodeAdmission,
		Source:  "seed 004 KEP-2823 Design; " + nodePluginsRef,
		Promise: "A pod every node admission plugin admits runs, after each plugin was asked once.",
		Specs:   []string{"NodePluginsAllAdmittingAdmits"}},
	Clause{ID: "node.plugins.any-rejection-wins", Area: NodeAdmission,
		Source:  "seed 004 KEP-2823 Design; " + nodePluginsRef,
		Promise: "When one node admission plugin rejects a pod and the others admit it, the pod is rejected with the rejecting plugin's Reason and Message, and every plugin was asked.",
		Specs:   []string{"NodePluginAnyRejectionWins"}},
	Clause{ID: "node.plugins.fail-closed", Area: NodeAdmission,
		Source:  "seed 004 KEP-2823 Implementation detail (if a plugin does not respond or crashes, the kubelet fails closed); " + nodePluginsRef,
		Promise: "A node admission plugin that crashes, exits non-zero, answers something other than an AdmitResult or does not answer within the host's timeout makes the node reject the pod (Reason AdmissionPluginFailed, AdmissionPluginInvalidResponse or AdmissionPluginTimeout) with a message naming the plugin.",
		Specs:   []string{"NodePluginCrashFailsClosed", "NodePluginNonZeroExitFailsClosed", "NodePluginGarbageFailsClosed", "NodePluginTimeoutFailsClosed"}},
	Clause{ID: "node.plugins.parallel", Area: NodeAdmission,
		Source:  "seed 004 KEP-2823 Implementation detail (plugins can be invoked in parallel); " + nodePluginsRef,
		Promise: "Node admission plugins are asked at the same time: two that each take 1 s admit a pod in about 1 s, not 2 s.",
		Specs:   []string{"NodePluginsRunInParallel"}},
	Clause{ID: "node.plugins.pod-unchanged", Area: NodeAdmission,
		Source:  "seed 004 KEP-2823 Implementation detail (plugins do not mutate the pod); " + nodePluginsRef,
		Promise: "A node admission plugin is sent the pod as stored (a v1 Pod with its name, namespace, UID, labels and spec), and the pod it admits runs with that spec unchanged.",
		Specs:   []string{"NodePluginSeesThePodUnchanged"}},
)
