package v1alpha1

import "k8s.io/apimachinery/pkg/runtime/schema"

// The API.
const (
	Group    = "initializers.admission-conformance.io"
	Version  = "v1alpha1"
	Resource = "initializerconfigurations"
	Kind     = "InitializerConfiguration"
	CRDName  = Resource + "." + Group
)

// GroupVersionResource of InitializerConfiguration.
var GroupVersionResource = schema.GroupVersionResource{Group: Group, Version: Version, Resource: Resource}

// What the implementation leaves on the pods it holds.
const (
	// InitializingLabel is on a pod from its creation until its last
	// assigned initializer is gone (or it failed).
	InitializingLabel = Group + "/initializing"
	// AssignedAnnotation lists the initializers assigned at creation, as
	// JSON (see Assigned): their order, failure policy and timeout.
	AssignedAnnotation = Group + "/assigned"
	// InitializedCondition is set False on a pod that failed initialization.
	InitializedCondition = Group + "/Initialized"
)

// Reasons, on pod status, conditions and events.
const (
	// ReasonTimeout: an initializer with failurePolicy Fail timed out and
	// the pod failed (status reason, condition reason, Warning event).
	ReasonTimeout = "InitializerTimeout"
	// ReasonTimeoutIgnored: an initializer with failurePolicy Ignore timed
	// out and was removed (Warning event).
	ReasonTimeoutIgnored = "InitializerTimeoutIgnored"
	// ReasonGlobalTimeout: read repair acted on a pod older than the global
	// timeout whose head initializer had no running timer.
	ReasonGlobalTimeout = "InitializerGlobalTimeout"
	// ReasonLoadingConfiguration is the reason of the webhook's denial while
	// no read of the configurations succeeded for the block window.
	ReasonLoadingConfiguration = "LoadingConfiguration"
	// EventSource is the component of the events the controller emits.
	EventSource = "initializers.admission-conformance.io"
)

// What the implementation installs. Fixed names, so that one instance per
// cluster is installed and specs can find its parts on any cluster.
const (
	Namespace                = "admission-conformance-initializers"
	WebhookConfigurationName = "admission-conformance-initializers"
	WebhookName              = "pods." + Group
	ProbeWebhookName         = "probe." + Group
	PolicyName               = "created-fail-open." + Group
	// PollerUser reads the configurations; PollerBinding grants it that and
	// nothing else, so removing the binding cuts the poller off alone.
	PollerUser    = "admission-conformance:initializers:poller"
	PollerRole    = "admission-conformance-initializers-poller"
	PollerBinding = "admission-conformance-initializers-poller"
	// ControllerUser updates pods, emits events and stamps the exemption on
	// mutating webhook configurations.
	ControllerUser    = "admission-conformance:initializers:controller"
	ControllerRole    = "admission-conformance-initializers-controller"
	ControllerBinding = "admission-conformance-initializers-controller"
	// ExemptionCondition is the matchCondition the implementation adds to
	// mutating webhooks that match pod updates: it is false for updates of
	// pods being initialized, so update mutators do not run on them.
	ExemptionCondition = Group + "/not-initializing"
	// ProbeLabel marks the ConfigMaps that prove the webhook is in force.
	ProbeLabel = Group + "/probe"
)
