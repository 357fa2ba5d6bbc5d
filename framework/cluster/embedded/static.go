package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
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

// staticDirs are the four plugins' directories below one replica's dir.
var staticDirs = map[cluster.StaticPlugin]string{
	cluster.StaticValidatingWebhook: "validating-webhooks",
	cluster.StaticMutatingWebhook:   "mutating-webhooks",
	cluster.StaticValidatingPolicy:  "validating-policies",
	cluster.StaticMutatingPolicy:    "mutating-policies",
}

// admissionConfig gives each plugin its staticManifestsDir.
const admissionConfig = `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    staticManifestsDir: %q
- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    staticManifestsDir: %q
- name: ValidatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ValidatingAdmissionPolicyConfiguration
    staticManifestsDir: %q
- name: MutatingAdmissionPolicy
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: MutatingAdmissionPolicyConfiguration
    staticManifestsDir: %q
`

// setUpStatic makes replica's static directories below dir, writes the
// boot hooks into them and the AdmissionConfiguration naming them, and
// returns the directories and the flag that gives the file to the replica.
func setUpStatic(dir string, replica int) (map[cluster.StaticPlugin]string, string, error) {
	base := filepath.Join(dir, fmt.Sprintf("static-%d", replica))
	dirs := map[cluster.StaticPlugin]string{}
	for plugin, sub := range staticDirs {
		dirs[plugin] = filepath.Join(base, sub)
		if err := os.MkdirAll(dirs[plugin], 0o755); err != nil {
			return nil, "", err
		}
	}
	one := []map[cluster.StaticPlugin]string{dirs}
	policy, binding := staticmanifest.BootPolicy()
	if err := staticmanifest.Write(one, cluster.StaticValidatingPolicy, staticmanifest.BootFile, policy, binding); err != nil {
		return nil, "", fmt.Errorf("boot policy: %w", err)
	}
	if err := staticmanifest.Write(one, cluster.StaticValidatingWebhook, staticmanifest.BootFile, staticmanifest.BootWebhook()); err != nil {
		return nil, "", fmt.Errorf("boot webhook: %w", err)
	}
	config := filepath.Join(base, "admission-config.yaml")
	data := fmt.Sprintf(admissionConfig, dirs[cluster.StaticValidatingWebhook], dirs[cluster.StaticMutatingWebhook],
		dirs[cluster.StaticValidatingPolicy], dirs[cluster.StaticMutatingPolicy])
	if err := os.WriteFile(config, []byte(data), 0o644); err != nil {
		return nil, "", err
	}
	return dirs, "--admission-control-config-file=" + config, nil
}

// bootProbe makes the first requests to a replica that has just become
// ready: dry-run creates of namespaces labelled for the boot policy and the
// boot webhook. Namespaces, because they need nothing else to exist yet.
func bootProbe(ctx context.Context, config *rest.Config) (cluster.StaticBootProbe, error) {
	var p cluster.StaticBootProbe
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return p, err
	}
	create := func(label string) (string, int32) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "static-boot-", Labels: map[string]string{label: "probe"}}}
		_, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return "", 0
		}
		if s, ok := err.(apierrors.APIStatus); ok {
			return err.Error(), s.Status().Code
		}
		return err.Error(), 0
	}
	p.Policy, p.PolicyCode = create(cluster.BootPolicyLabel)
	p.Webhook, p.WebhookCode = create(cluster.BootWebhookLabel)
	return p, nil
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
