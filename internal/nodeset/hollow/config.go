// Package hollow runs one hollow kubelet: the real kubelet (its admit chain,
// pod workers, status manager and event recorder) over a fake container
// runtime, a fake cAdvisor and a stub container manager, as kubemark does.
// It is the child side of framework/nodes: each node is a process of its
// own, because two kubelets cannot share a process (duplicate metrics) and
// a kubelet cannot be stopped except by ending its process.
package hollow

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
)

// Config is what the parent tells a node. It travels as a JSON file.
type Config struct {
	// Name is the node's name.
	Name string `json:"name"`
	// Dir is the node's own directory inside the run's temp dir; every file
	// the node writes lives below it.
	Dir string `json:"dir"`
	// Kubeconfig holds the node's client certificate (system:node:<name>).
	Kubeconfig string `json:"kubeconfig"`
	// Labels are extra node labels.
	Labels map[string]string `json:"labels,omitempty"`
	// MaxPods is the node's pod capacity.
	MaxPods int32 `json:"maxPods"`
	// ExtendedResources are advertised in the node's capacity, e.g.
	// {"example.com/widget": "2"}.
	ExtendedResources map[string]string `json:"extendedResources,omitempty"`
	// QPS and Burst of the kubelet's client: the default 5 QPS throttles pod
	// status updates and so the time a rejection takes to show.
	QPS   float32 `json:"qps"`
	Burst int     `json:"burst"`
	// Plugins, if set, hosts KEP-2823 node-local admission plugins.
	Plugins *PluginHost `json:"plugins,omitempty"`
	// Broken deliberately breaks the kubelet's admission, for the harness's
	// own tests; empty for a correct kubelet.
	Broken Broken `json:"broken,omitempty"`
	// Verbosity is the kubelet's klog level.
	Verbosity int `json:"verbosity,omitempty"`
	// FeatureGates are set on the kubelet's feature gates before it starts,
	// as its --feature-gates flag would (name to enabled).
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
}

// PluginHost configures the node's KEP-2823 plugin host.
type PluginHost struct {
	// ConfigDir holds the plugin configuration file, PluginDir the plugins.
	ConfigDir string `json:"configDir"`
	PluginDir string `json:"pluginDir"`
	// Timeout bounds each plugin call.
	Timeout bounds.Duration `json:"timeout"`
	// FailOpen admits pods when a plugin fails: a deliberately broken host.
	FailOpen bool `json:"failOpen,omitempty"`
	// RejectLate holds each rejection for the plugin timeout: a
	// deliberately slow host.
	RejectLate bool `json:"rejectLate,omitempty"`
	// IgnoreRejections admits pods a plugin rejects itself: a deliberately
	// broken host.
	IgnoreRejections bool `json:"ignoreRejections,omitempty"`
}

// Broken names a deliberately broken kubelet admission.
type Broken string

const (
	// NotBroken is a correct kubelet.
	NotBroken Broken = ""
	// NoPredicates removes the kubelet's predicate admit handler (resources,
	// node affinity, ports, taints, OS), as an implementation that skips
	// those checks would.
	NoPredicates Broken = "no-predicates"
	// ReasonsDiffer reports every rejection with a Reason other than
	// upstream's (lower-cased), as an implementation with its own reason
	// strings would.
	ReasonsDiffer Broken = "reasons-differ"
)

// ParseBroken validates a Broken value.
func ParseBroken(s string) (Broken, error) {
	switch b := Broken(s); b {
	case NotBroken, NoPredicates, ReasonsDiffer:
		return b, nil
	}
	return "", fmt.Errorf("unknown broken kubelet %q: use %s or %s", s, NoPredicates, ReasonsDiffer)
}

// WriteConfig writes c as JSON to path.
func WriteConfig(path string, c Config) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// ReadConfig reads a config written by WriteConfig.
func ReadConfig(path string) (Config, error) {
	var c Config
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("node config %s: %w", path, err)
	}
	if c.Name == "" || c.Dir == "" || c.Kubeconfig == "" {
		return c, fmt.Errorf("node config %s: name, dir and kubeconfig are required", path)
	}
	return c, nil
}
