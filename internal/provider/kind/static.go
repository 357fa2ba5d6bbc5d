package kind

import (
	"context"
	"fmt"
	"path/filepath"

	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
)

// nodeStaticDir is where each control-plane node, and its apiserver, see
// the node's static dir (staticmanifest.SetUp: the AdmissionConfiguration
// and the four plugins' staticManifestsDirs); the host directory behind it
// is in the provider's work dir, where the harness writes.
const nodeStaticDir = "/etc/kubernetes/admission-conformance-static"

// staticSetting gives every apiserver its node's AdmissionConfiguration and
// mounts the node's static dir into its pod, read-only (the apiserver only
// reads it; the harness writes on the host).
var staticSetting = apiserverSetting{
	args:    []apiserverArg{{"admission-control-config-file", nodeStaticDir + "/" + staticmanifest.ConfigFile}},
	volumes: []apiserverVolume{{name: "admission-conformance-static", path: nodeStaticDir, pathType: "Directory", readOnly: true}},
}

// Broken names a deliberately broken set-up of the provider. It exists for
// the harness's own tests (the specs must fail on it), never for a
// conformance run, and no flag sets it.
type Broken string

const (
	// NotBroken is the provider as it is.
	NotBroken Broken = ""
	// StaticNeverReloads mounts into the second control-plane node (the
	// only one on single and multi) a copy of its static dir instead of the
	// dir the harness writes: its apiserver starts with the boot hooks and
	// never sees a change the harness makes afterwards, like an apiserver
	// that never reloads its staticManifestsDirs.
	StaticNeverReloads Broken = "static-never-reloads"
)

// withStatic makes, for the i-th control-plane node, the static dir
// dir/static/<i> (the boot hooks, the four plugins' directories, the
// AdmissionConfiguration naming them as the node sees them) and mounts it
// into the node at nodeStaticDir. It returns each replica's directories on
// this host, in node name order (kind names them <name>-control-plane,
// -control-plane2, ...), and the apiserver setting (apiserverPatches).
func withStatic(cfg *v1alpha4.Cluster, dir string, broken Broken) ([]map[cluster.StaticPlugin]string, apiserverSetting, error) {
	cps := 0
	for _, n := range cfg.Nodes {
		if n.Role == v1alpha4.ControlPlaneRole {
			cps++
		}
	}
	var all []map[cluster.StaticPlugin]string
	for i := range cfg.Nodes {
		if cfg.Nodes[i].Role != v1alpha4.ControlPlaneRole {
			continue
		}
		replica := len(all)
		host := filepath.Join(dir, "static", fmt.Sprint(replica))
		dirs, err := staticmanifest.SetUp(host, nodeStaticDir)
		if err != nil {
			return nil, apiserverSetting{}, fmt.Errorf("static manifests of control plane %d: %w", replica, err)
		}
		mounted := host
		if broken == StaticNeverReloads && replica == min(1, cps-1) {
			mounted = host + "-copy"
			if _, err := staticmanifest.SetUp(mounted, nodeStaticDir); err != nil {
				return nil, apiserverSetting{}, fmt.Errorf("static manifests of control plane %d (broken copy): %w", replica, err)
			}
		}
		cfg.Nodes[i].ExtraMounts = append(cfg.Nodes[i].ExtraMounts, v1alpha4.Mount{HostPath: mounted, ContainerPath: nodeStaticDir})
		all = append(all, dirs)
	}
	return all, staticSetting, nil
}

// staticSince is the first minor whose kube-apiserver has static manifests
// on by default (features.StaticAdmissionManifests).
func staticSince() string {
	f, err := features.Lookup(string(features.StaticAdmissionManifests))
	if err != nil {
		panic(err)
	}
	return f.Since
}

// staticUnsupported says why a cluster from a node image running
// Kubernetes kubeVersion (as /kind/version says: v1.37.2) gets no static
// manifests, or "" if it gets them: an apiserver given a staticManifestsDir
// while the gate is off refuses to start, so the directories are set up
// only where the gate is on by default.
func staticUnsupported(image, kubeVersion string) string {
	v, err := version.ParseGeneric(kubeVersion)
	if err != nil {
		return fmt.Sprintf("the Kubernetes version of node image %s could not be read (%q)", imageName(image), kubeVersion)
	}
	since := staticSince()
	if !features.AtLeast(int(v.Major()), int(v.Minor()), since) {
		return fmt.Sprintf("node image %s runs Kubernetes %s, whose kube-apiserver has gate ManifestBasedAdmissionControlConfig off by default (on from %s): the cluster was created without static manifest directories", imageName(image), kubeVersion, since)
	}
	return ""
}

// reusedStaticReason is why a reused cluster does not declare static
// manifests.
const reusedStaticReason = "the kind cluster was reused, not created by this run, so it is taken as created without the static manifest directories the harness writes"

// probeStatic makes each replica's boot probe (staticmanifest.Probe), the
// first requests the harness sends it.
func (c *kindCluster) probeStatic(ctx context.Context) error {
	for i, r := range c.replicas {
		p, err := staticmanifest.Probe(ctx, r)
		if err != nil {
			return fmt.Errorf("static manifests boot probe of %s: %w", c.controlPlanes[i], err)
		}
		c.staticProbes = append(c.staticProbes, p)
	}
	return nil
}

// StaticManifestDirs implements cluster.StaticManifests: each control
// plane's directories on this host, behind a mount into its node (clusters
// the provider created from a node image with the gate on; nil otherwise).
func (c *kindCluster) StaticManifestDirs() []map[cluster.StaticPlugin]string {
	if len(c.staticDirs) == 0 {
		return nil
	}
	out := make([]map[cluster.StaticPlugin]string, len(c.staticDirs))
	for i, d := range c.staticDirs {
		out[i] = map[cluster.StaticPlugin]string{}
		for k, v := range d {
			out[i][k] = v
		}
	}
	return out
}

// StaticBootProbes implements cluster.StaticManifests.
func (c *kindCluster) StaticBootProbes() []cluster.StaticBootProbe {
	return append([]cluster.StaticBootProbe(nil), c.staticProbes...)
}

var _ cluster.StaticManifests = (*kindCluster)(nil)
