package nodes

import (
	"maps"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/nodes/hollow"
)

// ExtendedResource is what every node advertises by default, so specs can
// exhaust an extended resource.
const ExtendedResource = "admission-conformance.io/widget"

// AppArmorLabel and HollowLabel are set by every node: see hollow.
const (
	AppArmorLabel = hollow.AppArmorLabel
	HollowLabel   = hollow.HollowLabel
)

// Spec is the shape of every node of a cluster.
type Spec struct {
	// MaxPods is each node's pod capacity. Small, so a spec can fill a node.
	MaxPods int32
	// ExtendedResources each node advertises, name to quantity.
	ExtendedResources map[string]string
	// Labels are extra labels on every node.
	Labels map[string]string
	// PluginHost gives each node a KEP-2823 plugin host.
	PluginHost bool
	// PluginTimeout bounds each plugin call.
	PluginTimeout time.Duration
	// PluginsFailOpen breaks the plugin host: failures admit. For the
	// harness's own tests.
	PluginsFailOpen bool
	// PluginsRejectLate breaks the plugin host: each rejection comes only
	// after the plugin timeout. For the harness's own tests.
	PluginsRejectLate bool
	// PluginsIgnoreRejections breaks the plugin host: a plugin's own
	// rejection admits. For the harness's own tests.
	PluginsIgnoreRejections bool
	// Broken breaks the kubelets' admission. For the harness's own tests.
	Broken hollow.Broken
	// QPS of each kubelet's API client.
	QPS float32
	// Verbosity of the kubelets' logs.
	Verbosity int
	// FeatureGates are each kubelet's feature gates (name to enabled), as
	// its --feature-gates would set them.
	FeatureGates map[string]bool
}

// LackedFeatures are kubelet feature gates the default nodes have off, so
// that their kubelets leave the matching features out of
// node.status.declaredFeatures (NodeDeclaredFeatures): without a node that
// lacks a feature, nothing can show how the apiserver's
// NodeDeclaredFeatureValidator and the kubelet's declared-features check
// treat a resize or a pod needing it. Both are beta and on by default from
// 1.36, both known from 1.35; no other spec uses them.
var LackedFeatures = map[string]bool{
	// Resizing pod-level resources (pods/resize of spec.resources).
	"InPlacePodLevelResourcesVerticalScaling": false,
	// Containers' restartPolicyRules with the action RestartAllContainers.
	"RestartAllContainersOnContainerExits": false,
}

// DefaultSpec is what the embedded provider starts unless told otherwise.
func DefaultSpec() Spec {
	return Spec{
		MaxPods:           20,
		ExtendedResources: map[string]string{ExtendedResource: "2"},
		PluginHost:        true,
		PluginTimeout:     3 * time.Second,
		QPS:               100,
		FeatureGates:      maps.Clone(LackedFeatures),
	}
}
