package nodeset

import (
	"maps"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/internal/nodeset/hollow"
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

// ExtendedResourceCount is how many units of nodes.ExtendedResource a
// default node advertises; the kind provider gives its nodes as many.
const ExtendedResourceCount = "2"

// DefaultSpec is what the embedded provider starts unless told otherwise.
func DefaultSpec() Spec {
	return Spec{
		MaxPods:           20,
		ExtendedResources: map[string]string{nodes.ExtendedResource: ExtendedResourceCount},
		PluginHost:        true,
		PluginTimeout:     3 * time.Second,
		QPS:               100,
		FeatureGates:      maps.Clone(nodes.LackedFeatures),
	}
}
