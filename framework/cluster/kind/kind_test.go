package kind

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
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
		if !slices.Equal(cfg.KubeadmConfigPatches, []string{kubeletPatch, kubeProxyPatch}) {
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
	logs, err := withAudit(cfg, dir)
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
	// The kubelet's and kube-proxy's patches and one audit patch per kubeadm
	// config version.
	if len(cfg.KubeadmConfigPatches) != 4 {
		t.Errorf("patches: %q", cfg.KubeadmConfigPatches)
	}
	for _, version := range []string{"kubeadm.k8s.io/v1beta3", "kubeadm.k8s.io/v1beta4"} {
		if !slices.ContainsFunc(cfg.KubeadmConfigPatches, func(p string) bool { return strings.HasPrefix(p, "apiVersion: "+version+"\n") }) {
			t.Errorf("no audit patch for %s: %q", version, cfg.KubeadmConfigPatches)
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
	if st, err := os.Stat(filepath.Join(bin, executableName)); err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("the harness's binary is not in bin/: %v", err)
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
