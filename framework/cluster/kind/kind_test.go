package kind

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
		if len(cfg.KubeadmConfigPatches) != 1 {
			t.Errorf("%s: want the cgroup v1 kubelet patch, got %q", tc.t, cfg.KubeadmConfigPatches)
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
	// The kubelet's patch and one audit patch per kubeadm config version.
	if len(cfg.KubeadmConfigPatches) != 3 {
		t.Errorf("patches: %q", cfg.KubeadmConfigPatches)
	}
	for _, version := range []string{"kubeadm.k8s.io/v1beta3", "kubeadm.k8s.io/v1beta4"} {
		if !slices.ContainsFunc(cfg.KubeadmConfigPatches, func(p string) bool { return strings.HasPrefix(p, "apiVersion: "+version+"\n") }) {
			t.Errorf("no audit patch for %s: %q", version, cfg.KubeadmConfigPatches)
		}
	}
}
