package embedded

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
)

func TestStaticManifestsOnFollowsTheGate(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--feature-gates=ManifestBasedAdmissionControlConfig=false"}, false},
		{[]string{"--feature-gates", "ManifestBasedAdmissionControlConfig=false"}, false},
		{[]string{"--feature-gates=ManifestBasedAdmissionControlConfig=false", "--feature-gates=ManifestBasedAdmissionControlConfig=true"}, true},
		{[]string{"--admission-control-config-file=/x.yaml"}, false},
		{[]string{"--emulated-version=1.36"}, false},
	} {
		if got := staticManifestsOn(tc.args); got != tc.want {
			t.Errorf("staticManifestsOn(%q) = %t, want %t", tc.args, got, tc.want)
		}
	}
}

func TestStaticManifestsDeclaredAndProbed(t *testing.T) {
	c := start(t, WithoutScheduler(), WithoutControllerManager())
	if !c.Capabilities().Has(features.StaticAdmissionManifests) {
		t.Fatal("the cluster must declare StaticAdmissionManifests")
	}
	dirs := c.StaticManifestDirs()
	if len(dirs) != 1 || len(dirs[0]) != len(cluster.StaticPlugins) {
		t.Fatalf("want one replica with four directories, got %v", dirs)
	}
	p := c.StaticBootProbes()[0]
	if !strings.Contains(p.Policy, cluster.BootPolicyMessage) || !strings.Contains(p.Webhook, cluster.BootWebhookName) {
		t.Fatalf("boot probe: %+v", p)
	}
}

// TestStaticInvalidDirRefusesStart: an apiserver whose static webhook
// directory holds a file that fails validation (a service clientConfig)
// does not start, and the error names the directory. The contract clause
// static.invalid-dir-refuses-start points here: a spec cannot restart the
// run's apiservers.
func TestStaticInvalidDirRefusesStart(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "webhooks")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: bad.static.k8s.io
webhooks:
- name: bad.example.com
  clientConfig:
    service: {namespace: default, name: svc}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	refusesStart(t, webhookConfig(t, base, dir), dir)
}

// TestStaticManifestsDirMustBeAnAbsoluteDirectory: staticManifestsDir must
// be an absolute path of an existing directory (KEP-5793); an apiserver
// given anything else does not start, and says what is wrong with which
// path. The relative path names a directory that exists relative to the
// apiserver's working directory, so only the rule itself refuses it.
func TestStaticManifestsDirMustBeAnAbsoluteDirectory(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	existing := filepath.Join(base, "webhooks")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	relative, err := filepath.Rel(cwd, existing)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{relative, "must be an absolute file path"},
		{filepath.Join(base, "missing"), "unable to read"},
		{file, "must be a directory"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			err := refusesStart(t, webhookConfig(t, t.TempDir(), tc.dir), tc.dir)
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("the error must say %q: %v", tc.want, err)
			}
		})
	}
}

// webhookConfig writes an AdmissionConfiguration giving the validating
// webhook plugin staticManifestsDir dir, and returns its path.
func webhookConfig(t *testing.T, base, dir string) string {
	t.Helper()
	config := filepath.Join(base, "admission.yaml")
	if err := os.WriteFile(config, []byte(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    staticManifestsDir: `+dir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// refusesStart starts an apiserver with config as its admission
// configuration, requires that it does not start, that the error names dir
// and that nothing is left behind, and returns the error.
func refusesStart(t *testing.T, config, dir string) error {
	t.Helper()
	runs := t.TempDir()
	c, err := New(WithBaseDir(runs), WithoutScheduler(), WithoutControllerManager(),
		WithAPIServerArgs("--admission-control-config-file="+config)).Start(context.Background())
	if err == nil {
		_ = c.Stop(context.Background())
		t.Fatalf("an apiserver whose static webhook directory %s is invalid must not start", dir)
	}
	if !strings.Contains(err.Error(), dir) {
		t.Fatalf("the error must name the directory %s: %v", dir, err)
	}
	assertEmpty(t, runs)
	return err
}
