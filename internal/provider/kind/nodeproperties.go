package kind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/kind/pkg/exec"

	clusternodes "github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
)

// appArmorCheck is the kubelet's own test of AppArmor support
// (k8s.io/kubernetes third_party/forked/libcontainer/apparmor IsEnabled,
// which the kubelet's validator runs once at start), run in the node's
// container, whose file system the kubelet sees.
const appArmorCheck = `if [ -e /sys/kernel/security/apparmor ] && head -c 1 /sys/module/apparmor/parameters/enabled 2>/dev/null | grep -q Y; then echo enforceable; else echo unavailable; fi`

// describeNodes gives a created cluster's nodes what the embedded cluster's
// hollow nodes carry for the built-in kubelet specs (framework/nodes): the
// AppArmor label saying whether the node's kubelet can enforce profiles, and
// the extended resource. A reused cluster's nodes are left alone: those
// specs then say why they cannot run there.
func describeNodes(ctx context.Context, client kubernetes.Interface, names []string) error {
	for _, name := range names {
		if err := labelAppArmor(ctx, client, name); err != nil {
			return err
		}
		if err := advertiseExtendedResource(ctx, client, name); err != nil {
			return err
		}
	}
	return nil
}

// labelAppArmor sets clusternodes.AppArmorLabel to what the node's kubelet
// found at start: only a node that cannot enforce AppArmor rejects a pod
// asking for a profile.
func labelAppArmor(ctx context.Context, client kubernetes.Interface, node string) error {
	out, err := exec.Output(exec.CommandContext(ctx, "docker", "exec", node, "sh", "-c", appArmorCheck))
	if err != nil {
		return fmt.Errorf("AppArmor support of kind node %s: %w", node, errors.Join(err, runErrorOutput(err)))
	}
	value := strings.TrimSpace(string(out))
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{clusternodes.AppArmorLabel: value}}})
	if err != nil {
		return err
	}
	if _, err := client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("node %s: label %s=%s: %w", node, clusternodes.AppArmorLabel, value, err)
	}
	return nil
}

// advertiseExtendedResource is what a cluster operator does to advertise an
// extended resource: a patch of the node's status. The kubelet keeps an
// extended resource no device plugin reports and recomputes the same
// allocatable from it at each status update; allocatable is patched too, so
// the kubelet's admission sees the resource at once rather than at its next
// update. Only pods asking for the resource are affected.
func advertiseExtendedResource(ctx context.Context, client kubernetes.Interface, node string) error {
	amount := map[corev1.ResourceName]string{clusternodes.ExtendedResource: nodeset.ExtendedResourceCount}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"capacity": amount, "allocatable": amount}})
	if err != nil {
		return err
	}
	if _, err := client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		return fmt.Errorf("node %s: advertise %s: %w", node, clusternodes.ExtendedResource, err)
	}
	return nil
}
