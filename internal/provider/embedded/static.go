package embedded

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/component-base/featuregate"

	utilfeature "k8s.io/apiserver/pkg/util/feature"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
)

// staticGate is the kube-apiserver feature gate of static admission
// manifests (KEP-5793): alpha in 1.36, beta and on by default in 1.37,
// unknown before. It is named, not referenced, so this file compiles
// against every minor the harness supports.
const staticGate = featuregate.Feature("ManifestBasedAdmissionControlConfig")

// staticManifestsOn reports whether the apiservers, started with the user's
// args, have static manifests on. It applies the args' --feature-gates to a
// copy of the process's gates as kube-apiserver would. A release that does
// not know the gate, an --emulated-version (whose defaults a copy cannot
// reproduce) or the user's own --admission-control-config-file (which the
// harness must not replace) all mean off: the apiserver would refuse a
// staticManifestsDir it does not know or has off, or the user's file would be
// replaced.
func staticManifestsOn(args []string) bool {
	return gateOn(args, staticGate, "admission-control-config-file")
}

// balancingGate is the kube-apiserver feature gate that picks a Service
// webhook's endpoint per request (beta and on in 1.37, unknown before).
const balancingGate = featuregate.Feature("WebhookRoundTripLoadBalancing")

// balancedPerRequest reports whether the apiservers, started with the
// user's args, pick a Service webhook's endpoint per request: the gate on
// (the embedded apiservers always route to endpoints themselves,
// --enable-aggregator-routing).
func balancedPerRequest(args []string) bool { return gateOn(args, balancingGate) }

// gateOn reports whether gate is on for apiservers started with args: the
// args' --feature-gates applied to a copy of the process's gates, as
// kube-apiserver would. A release that does not know the gate, an
// --emulated-version (whose defaults a copy cannot reproduce) or any of
// refusing (flags of the user's that the harness must not replace) mean off.
func gateOn(args []string, gate featuregate.Feature, refusing ...string) bool {
	gates := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	if _, known := gates.GetAll()[gate]; !known {
		return false
	}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch {
		case name == "emulated-version" || slices.Contains(refusing, name):
			return false
		case name == "feature-gates":
			if !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
			if err := gates.Set(value); err != nil {
				return false
			}
		}
	}
	return gates.Enabled(gate)
}

// setUpStatic makes replica's static dir below dir (the four plugins'
// directories with the boot hooks, and the AdmissionConfiguration naming
// them: staticmanifest.SetUp), and returns the directories and the flag
// that gives the configuration to the replica.
func setUpStatic(dir string, replica int) (map[cluster.StaticPlugin]string, string, error) {
	base := filepath.Join(dir, fmt.Sprintf("static-%d", replica))
	dirs, err := staticmanifest.SetUp(base, "")
	if err != nil {
		return nil, "", err
	}
	return dirs, "--admission-control-config-file=" + filepath.Join(base, staticmanifest.ConfigFile), nil
}

// StaticManifestDirs implements cluster.StaticManifests; nil when the
// apiservers were started without static manifests.
func (c *Cluster) StaticManifestDirs() []map[cluster.StaticPlugin]string {
	out := make([]map[cluster.StaticPlugin]string, len(c.staticDirs))
	for i, d := range c.staticDirs {
		out[i] = map[cluster.StaticPlugin]string{}
		for k, v := range d {
			out[i][k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// StaticBootProbes implements cluster.StaticManifests.
func (c *Cluster) StaticBootProbes() []cluster.StaticBootProbe {
	return append([]cluster.StaticBootProbe(nil), c.staticProbes...)
}

var _ cluster.StaticManifests = (*Cluster)(nil)
