package kind

import (
	"fmt"
	"strings"
)

// apiserverSetting is what one feature of the provider adds to the
// kube-apiserver kubeadm starts on every control-plane node: flags, and
// volumes of the node mounted into the apiserver's pod at the same path.
type apiserverSetting struct {
	args    []apiserverArg
	volumes []apiserverVolume
}

type apiserverArg struct{ name, value string }

type apiserverVolume struct {
	name, path, pathType string
	readOnly             bool
}

// routingSetting has every apiserver resolve a Service to one of its
// endpoints itself rather than to its ClusterIP (aggregatorRouting, for
// loadBalancing).
var routingSetting = apiserverSetting{args: []apiserverArg{{"enable-aggregator-routing", `"true"`}}}

// apiserverPatches are the kubeadm ClusterConfiguration patches giving the
// apiservers every setting, one per kubeadm config API kind writes: v1beta4
// (Kubernetes 1.36 on), whose extraArgs are a list, and v1beta3 (before
// 1.36), where they are a map. kind applies a patch naming an apiVersion
// only to that version, so the node image's Kubernetes picks its own. All
// settings go into one patch: kind merges the extraArgs of several patches,
// but a later patch's extraVolumes list would replace an earlier one's.
func apiserverPatches(settings ...apiserverSetting) []string {
	var args []apiserverArg
	var volumes []apiserverVolume
	for _, s := range settings {
		args = append(args, s.args...)
		volumes = append(volumes, s.volumes...)
	}
	if len(args) == 0 && len(volumes) == 0 {
		return nil
	}
	var v1beta4, v1beta3 strings.Builder
	v1beta4.WriteString("apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\napiServer:\n")
	v1beta3.WriteString("apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\napiServer:\n")
	if len(args) > 0 {
		v1beta4.WriteString("  extraArgs:\n")
		v1beta3.WriteString("  extraArgs:\n")
	}
	for _, a := range args {
		fmt.Fprintf(&v1beta4, "  - name: %s\n    value: %s\n", a.name, a.value)
		fmt.Fprintf(&v1beta3, "    %s: %s\n", a.name, a.value)
	}
	// The volumes are the same in both versions.
	var vols strings.Builder
	if len(volumes) > 0 {
		vols.WriteString("  extraVolumes:\n")
	}
	for _, v := range volumes {
		fmt.Fprintf(&vols, "  - name: %s\n    hostPath: %s\n    mountPath: %s\n", v.name, v.path, v.path)
		if v.readOnly {
			vols.WriteString("    readOnly: true\n")
		}
		fmt.Fprintf(&vols, "    pathType: %s\n", v.pathType)
	}
	return []string{v1beta4.String() + vols.String(), v1beta3.String() + vols.String()}
}
