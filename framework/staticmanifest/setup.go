package staticmanifest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
)

// What a provider sets up for one apiserver replica, below one directory of
// its own (the replica's "static dir"): a directory per plugin and the
// AdmissionConfiguration naming them. The embedded and kind providers use
// the same layout; only where the apiserver sees the static dir differs
// (the same path on the embedded cluster, a mount on a kind node).

// pluginDirs are the four plugins' directories below a static dir.
var pluginDirs = map[cluster.StaticPlugin]string{
	cluster.StaticValidatingWebhook: "validating-webhooks",
	cluster.StaticMutatingWebhook:   "mutating-webhooks",
	cluster.StaticValidatingPolicy:  "validating-policies",
	cluster.StaticMutatingPolicy:    "mutating-policies",
}

// ConfigFile is the AdmissionConfiguration's name in a static dir.
const ConfigFile = "admission-config.yaml"

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

// PluginDirs returns the four plugins' directories below static dir base.
func PluginDirs(base string) map[cluster.StaticPlugin]string {
	dirs := map[cluster.StaticPlugin]string{}
	for plugin, sub := range pluginDirs {
		dirs[plugin] = filepath.Join(base, sub)
	}
	return dirs
}

// AdmissionConfiguration is the AdmissionConfiguration giving each plugin
// the directory below seen, the static dir as the apiserver sees it.
func AdmissionConfiguration(seen string) []byte {
	dirs := PluginDirs(seen)
	return fmt.Appendf(nil, admissionConfig, dirs[cluster.StaticValidatingWebhook], dirs[cluster.StaticMutatingWebhook],
		dirs[cluster.StaticValidatingPolicy], dirs[cluster.StaticMutatingPolicy])
}

// SetUp makes static dir base for one replica before its apiserver starts:
// the four plugins' directories, the boot hooks in them (BootPolicy,
// BootWebhook) and base/ConfigFile naming the directories below seen,
// where the apiserver sees base (base itself when seen is empty). It
// returns the directories below base, where the harness writes.
func SetUp(base, seen string) (map[cluster.StaticPlugin]string, error) {
	if seen == "" {
		seen = base
	}
	dirs := PluginDirs(base)
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	one := []map[cluster.StaticPlugin]string{dirs}
	policy, binding := BootPolicy()
	if err := Write(one, cluster.StaticValidatingPolicy, BootFile, policy, binding); err != nil {
		return nil, fmt.Errorf("boot policy: %w", err)
	}
	if err := Write(one, cluster.StaticValidatingWebhook, BootFile, BootWebhook()); err != nil {
		return nil, fmt.Errorf("boot webhook: %w", err)
	}
	if err := os.WriteFile(filepath.Join(base, ConfigFile), AdmissionConfiguration(seen), 0o644); err != nil {
		return nil, err
	}
	return dirs, nil
}

// Probe makes the boot probe's requests to one replica (config reaches it
// alone): dry-run creates of namespaces labelled for the boot policy and
// the boot webhook. Namespaces, because they need nothing else to exist.
// A provider calls it as soon as the replica is ready, before anything
// else uses it where it can.
func Probe(ctx context.Context, config *rest.Config) (cluster.StaticBootProbe, error) {
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
