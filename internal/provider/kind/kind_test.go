package kind

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	clusternodes "github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/reference/nodeadmission"
)

func TestTopologies(t *testing.T) {
	for _, tc := range []struct {
		t                Topology
		controlPlanes, w int
	}{{Single, 1, 0}, {Multi, 1, 2}, {HA, 3, 1}} {
		cfg := tc.t.config()
		var cps, workers int
		for _, n := range cfg.Nodes {
			switch n.Role {
			case "control-plane":
				cps++
			case "worker":
				workers++
			}
		}
		if cps != tc.controlPlanes || workers != tc.w {
			t.Errorf("%s: %d control planes and %d workers, want %d and %d", tc.t, cps, workers, tc.controlPlanes, tc.w)
		}
		if !slices.Equal(cfg.KubeadmConfigPatches, append([]string{kubeletPatch, kubeProxyPatch}, controllerManagerPatches...)) {
			t.Errorf("%s: want the cgroup v1 kubelet patch and kube-proxy's, got %q", tc.t, cfg.KubeadmConfigPatches)
		}
	}
	if _, err := ParseTopology("huge"); err == nil {
		t.Error("ParseTopology accepted huge")
	}
	if got, err := ParseTopology("ha"); err != nil || got != HA {
		t.Errorf("ParseTopology(ha) = %v, %v", got, err)
	}
}

func TestLedger(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ledger")
	if names, err := Leftovers(dir); err != nil || len(names) != 0 {
		t.Fatalf("empty ledger: %v, %v", names, err)
	}
	for _, n := range []string{"b", "a"} {
		if err := recordCluster(dir, n); err != nil {
			t.Fatal(err)
		}
	}
	names, err := Leftovers(dir)
	if err != nil || !slices.Equal(names, []string{"a", "b"}) {
		t.Fatalf("Leftovers = %v, %v; want [a b]", names, err)
	}
	forgetCluster(dir, "a")
	if names, _ := Leftovers(dir); !slices.Equal(names, []string{"b"}) {
		t.Fatalf("after forgetting a: %v", names)
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
}

func TestAuditMountsEveryControlPlane(t *testing.T) {
	cfg := HA.config()
	dir := t.TempDir()
	logs, setting, err := withAudit(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 3 {
		t.Fatalf("%d audit logs for 3 control planes: %v", len(logs), logs)
	}
	for i, n := range cfg.Nodes {
		mounted := len(n.ExtraMounts) == 2 && n.ExtraMounts[0].ContainerPath == nodeAuditDir
		if (n.Role == "control-plane") != mounted {
			t.Errorf("node %d (%s): mounts %+v", i, n.Role, n.ExtraMounts)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "audit-policy.yaml")); err != nil {
		t.Error(err)
	}
	// One patch per kubeadm config version, with aggregator routing, as
	// they were written by hand before the static manifests' setting
	// joined them.
	patches := apiserverPatches(routingSetting, setting)
	want := []string{`apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
apiServer:
  extraArgs:
  - name: enable-aggregator-routing
    value: "true"
  - name: audit-policy-file
    value: /etc/kubernetes/audit-policy.yaml
  - name: audit-log-path
    value: /var/log/kubernetes/audit/audit.log
  - name: audit-log-format
    value: json
` + auditVolumesText, `apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
apiServer:
  extraArgs:
    enable-aggregator-routing: "true"
    audit-policy-file: /etc/kubernetes/audit-policy.yaml
    audit-log-path: /var/log/kubernetes/audit/audit.log
    audit-log-format: json
` + auditVolumesText}
	if !slices.Equal(patches, want) {
		t.Errorf("patches:\n%s\nwant:\n%s", strings.Join(patches, "\n"), strings.Join(want, "\n"))
	}
}

const auditVolumesText = `  extraVolumes:
  - name: audit-log
    hostPath: /var/log/kubernetes/audit
    mountPath: /var/log/kubernetes/audit
    pathType: DirectoryOrCreate
  - name: audit-policy
    hostPath: /etc/kubernetes/audit-policy.yaml
    mountPath: /etc/kubernetes/audit-policy.yaml
    readOnly: true
    pathType: File
`

// TestStaticMountsEveryControlPlane: each control plane gets its own static
// dir, mounted at nodeStaticDir, with the boot hooks and an
// AdmissionConfiguration naming the directories as the node sees them; the
// one patch per kubeadm config version carries the audit and the static
// settings together (a second patch's extraVolumes would replace the
// first's).
func TestStaticMountsEveryControlPlane(t *testing.T) {
	cfg := HA.config()
	dir := t.TempDir()
	_, audit, err := withAudit(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	dirs, static, err := withStatic(cfg, dir, NotBroken)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 3 {
		t.Fatalf("%d static dir sets for 3 control planes", len(dirs))
	}
	replica := 0
	for i, n := range cfg.Nodes {
		if n.Role != "control-plane" {
			if len(n.ExtraMounts) != 0 {
				t.Errorf("worker %d: mounts %+v", i, n.ExtraMounts)
			}
			continue
		}
		m := n.ExtraMounts[len(n.ExtraMounts)-1]
		host := filepath.Join(dir, "static", fmt.Sprint(replica))
		if m.ContainerPath != nodeStaticDir || m.HostPath != host {
			t.Errorf("control plane %d: static mount %+v, want %s at %s", replica, m, host, nodeStaticDir)
		}
		for _, plugin := range cluster.StaticPlugins {
			if d := dirs[replica][plugin]; filepath.Dir(d) != host {
				t.Errorf("control plane %d: %s dir %s is not below %s", replica, plugin, d, host)
			}
		}
		if _, err := os.Stat(filepath.Join(dirs[replica][cluster.StaticValidatingPolicy], staticmanifest.BootFile)); err != nil {
			t.Errorf("control plane %d: no boot policy: %v", replica, err)
		}
		config, err := os.ReadFile(filepath.Join(host, staticmanifest.ConfigFile))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(config), `staticManifestsDir: "`+nodeStaticDir+`/validating-webhooks"`) || strings.Contains(string(config), dir) {
			t.Errorf("control plane %d: the configuration must name the node's paths only:\n%s", replica, config)
		}
		replica++
	}
	patches := apiserverPatches(audit, static)
	if len(patches) != 2 {
		t.Fatalf("patches: %q", patches)
	}
	for _, p := range patches {
		for _, want := range []string{"audit-policy-file", "admission-control-config-file", "name: audit-log\n", "name: admission-conformance-static\n"} {
			if !strings.Contains(p, want) {
				t.Errorf("patch lacks %q:\n%s", want, p)
			}
		}
	}
}

// TestStaticNeverReloadsMountsACopy: the broken set-up mounts a copy of the
// second control plane's static dir, so what the harness writes never
// reaches that node; the others get their own dirs.
func TestStaticNeverReloadsMountsACopy(t *testing.T) {
	for _, tc := range []struct {
		topology Topology
		broken   int
	}{{HA, 1}, {Single, 0}} {
		cfg := tc.topology.config()
		dir := t.TempDir()
		dirs, _, err := withStatic(cfg, dir, StaticNeverReloads)
		if err != nil {
			t.Fatal(err)
		}
		replica := 0
		for _, n := range cfg.Nodes {
			if n.Role != "control-plane" {
				continue
			}
			host := filepath.Join(dir, "static", fmt.Sprint(replica))
			want := host
			if replica == tc.broken {
				want = host + "-copy"
				if _, err := os.Stat(filepath.Join(want, staticmanifest.ConfigFile)); err != nil {
					t.Errorf("%s: the copy must hold the configuration: %v", tc.topology, err)
				}
			}
			if got := n.ExtraMounts[0].HostPath; got != want {
				t.Errorf("%s: control plane %d mounts %s, want %s", tc.topology, replica, got, want)
			}
			if filepath.Dir(dirs[replica][cluster.StaticValidatingWebhook]) != host {
				t.Errorf("%s: control plane %d: the harness must write %s: %v", tc.topology, replica, host, dirs[replica])
			}
			replica++
		}
	}
}

func TestStaticNeedsTheGateOnByDefault(t *testing.T) {
	for _, tc := range []struct {
		version string
		set     bool
	}{{"v1.37.2", true}, {"v1.38.0-alpha.1", true}, {"v1.36.4", false}, {"v1.35.4", false}, {"garbage", false}} {
		reason := staticUnsupported("img", tc.version)
		if (reason == "") != tc.set {
			t.Errorf("%s: reason %q, want set up %t", tc.version, reason, tc.set)
		}
		if !tc.set && !strings.Contains(reason, "img") {
			t.Errorf("%s: the reason must name the image: %q", tc.version, reason)
		}
	}
}

func TestNodePluginDirsMountedIntoEveryNodeTwice(t *testing.T) {
	cfg := HA.config()
	dir := t.TempDir()
	if err := withNodePlugins(cfg, dir, PluginHost{Timeout: 3 * time.Second, IgnoreRejections: true}); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, nodeAdmissionDir, "bin")
	if st, err := os.Stat(bin); err != nil || !st.IsDir() {
		t.Errorf("no bin/ to mount: %v", err)
	}
	if err := placeExecutable(filepath.Join(bin, executableName)); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(bin, executableName)); err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("the harness's binary is not in bin/: %v", err)
	}
	if err := placeExecutable(filepath.Join(bin, executableName)); err != nil {
		t.Errorf("placing the binary again: %v", err)
	}
	for i, n := range cfg.Nodes {
		host := filepath.Join(dir, nodeAdmissionDir, "node-"+strconv.Itoa(i))
		want := []v1alpha4.Mount{{HostPath: host, ContainerPath: host}, {HostPath: host, ContainerPath: nodeadmission.HostConfigDir},
			{HostPath: bin, ContainerPath: bin, Readonly: true}}
		if !reflect.DeepEqual(n.ExtraMounts, want) {
			t.Errorf("node %d mounts %+v, want %+v", i, n.ExtraMounts, want)
		}
		c, err := nodeadmission.ReadHostConfig(host)
		if err != nil {
			t.Fatal(err)
		}
		want0 := nodeadmission.HostConfig{ConfigDir: filepath.Join(host, "conf"), PluginDir: filepath.Join(host, "plugins"),
			Timeout: "3s", IgnoreRejections: true}
		if c != want0 {
			t.Errorf("node %d host.json %+v, want %+v", i, c, want0)
		}
	}

	off := Single.config()
	if err := withNodePlugins(off, t.TempDir(), PluginHost{Off: true}); err != nil || len(off.Nodes[0].ExtraMounts) > 0 {
		t.Errorf("plugin host off: mounts %+v (%v)", off.Nodes[0].ExtraMounts, err)
	}
}

func TestNodeExecRunsTheBinaryInTheNodeWithItsStdin(t *testing.T) {
	e := cluster.NodeExec{Runtime: "docker", Container: "c-worker", Executable: "/w/bin/admission-conformance"}
	got := e.Argv([]string{"A=1", "B=2"}, "-x")
	want := []string{"docker", "exec", "-i", "-e", "A=1", "-e", "B=2", "c-worker", "/w/bin/admission-conformance", "-x"}
	if !slices.Equal(got, want) {
		t.Errorf("argv %q, want %q", got, want)
	}
}

func TestSupportCoversEveryFeature(t *testing.T) {
	if err := Support().Check(Name); err != nil {
		t.Error(err)
	}
}

// TestReusedClusterSaysWhyNoStaticManifests: a cluster without static dirs
// does not declare the feature and says why; one with them declares it.
func TestReusedClusterSaysWhyNoStaticManifests(t *testing.T) {
	reused := &kindCluster{staticReason: reusedStaticReason}
	if reused.Capabilities().Has(features.StaticAdmissionManifests) {
		t.Error("a reused cluster must not declare StaticAdmissionManifests")
	}
	if got := reused.NotDeclaredReasons()[features.StaticAdmissionManifests]; !strings.Contains(got, "created without the static manifest directories") {
		t.Errorf("reason %q", got)
	}
	created := &kindCluster{replicas: make([]*rest.Config, 3), staticDirs: make([]map[cluster.StaticPlugin]string, 3)}
	if !created.Capabilities().Has(features.StaticAdmissionManifests) || created.NotDeclaredReasons()[features.StaticAdmissionManifests] != "" {
		t.Errorf("a created cluster with static dirs must declare StaticAdmissionManifests: %v, %v", created.Capabilities(), created.NotDeclaredReasons())
	}
}

func TestOwnNodeIsAWorkerSetAsideWithTheEmbeddedNodesKubelet(t *testing.T) {
	dir := t.TempDir()
	cfg := Single.config()
	if err := withOwnNode(cfg, dir); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Nodes) != 2 {
		t.Fatalf("single with the harness's own node: %d nodes, want 2", len(cfg.Nodes))
	}
	own := cfg.Nodes[1]
	if own.Role != v1alpha4.WorkerRole || own.Labels[clusternodes.HollowLabel] != "true" {
		t.Errorf("own node: role %s, labels %v; want a worker labelled %s", own.Role, own.Labels, clusternodes.HollowLabel)
	}
	if len(own.ExtraMounts) != 1 || own.ExtraMounts[0].ContainerPath != ownNodePatchDir {
		t.Fatalf("own node mounts %+v, want its kubeadm patch dir at %s", own.ExtraMounts, ownNodePatchDir)
	}
	data, err := os.ReadFile(filepath.Join(own.ExtraMounts[0].HostPath, ownNodeKubeletPatch))
	if err != nil {
		t.Fatal(err)
	}
	var patch struct {
		FeatureGates map[string]bool `json:"featureGates"`
		MaxPods      int32           `json:"maxPods"`
	}
	if err := json.Unmarshal(data, &patch); err != nil {
		t.Fatalf("kubelet patch %s: %v", data, err)
	}
	if !maps.Equal(patch.FeatureGates, clusternodes.LackedFeatures) || patch.MaxPods != nodeset.DefaultSpec().MaxPods {
		t.Errorf("kubelet patch %s: want the embedded nodes' gates %v and %d pods", data, clusternodes.LackedFeatures, nodeset.DefaultSpec().MaxPods)
	}
	for _, p := range own.KubeadmConfigPatches {
		for _, want := range []string{"kind: JoinConfiguration", ownNodeTaint, "effect: NoSchedule", "directory: " + ownNodePatchDir} {
			if !strings.Contains(p, want) {
				t.Errorf("join patch lacks %q:\n%s", want, p)
			}
		}
	}
}
