package kind

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	clusternodes "github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
)

// The harness's own node: one more worker in every cluster the provider
// creates, set aside for the specs that fill, taint or relabel a node, or
// need a kubelet lacking features every other node's kubelet declares. On
// the embedded cluster those run on hollow nodes, which run nothing but the
// harness's pods; this node is the same on kind:
//   - it carries clusternodes.HollowLabel, by which those specs find it;
//   - it registers with a NoSchedule taint (ownNodeTaint), so the scheduler
//     places nothing there (specs bind their pods to it by name, which the
//     kubelet admits: it checks NoExecute taints only); the DaemonSets'
//     pods (kube-proxy, the CNI daemon) tolerate every taint and run there
//     as on every node;
//   - its kubelet has the embedded nodes' feature gates
//     (clusternodes.LackedFeatures) and pod capacity
//     (nodeset.DefaultSpec), through a kubeadm patch of its own kubelet
//     configuration: a node of 110 pods would take too long to fill.
const (
	ownNodeTaint = "node.admission-conformance.io/harness-only"
	// ownNodePatchDir is where the node's kubeadm reads its patches; the
	// host dir behind it is in the provider's work dir.
	ownNodePatchDir = "/etc/kubernetes/admission-conformance-patches"
	// ownNodeKubeletPatch is kubeadm's name for a merge patch of the
	// kubelet configuration (target kubeletconfiguration).
	ownNodeKubeletPatch = "kubeletconfiguration+merge.json"
)

// ownNodeJoinPatches register the node with its taint and have kubeadm
// patch its kubelet configuration, one per kubeadm config version (kind
// applies the one matching its release's).
func ownNodeJoinPatches() []string {
	var out []string
	for _, v := range []string{"v1beta4", "v1beta3"} {
		out = append(out, fmt.Sprintf(`apiVersion: kubeadm.k8s.io/%s
kind: JoinConfiguration
nodeRegistration:
  taints:
  - key: %s
    value: "true"
    effect: NoSchedule
patches:
  directory: %s
`, v, ownNodeTaint, ownNodePatchDir))
	}
	return out
}

// ownKubeletConfig is the merge patch of the node's kubelet configuration.
func ownKubeletConfig() ([]byte, error) {
	return json.Marshal(map[string]any{
		"featureGates": clusternodes.LackedFeatures,
		"maxPods":      nodeset.DefaultSpec().MaxPods,
	})
}

// withOwnNode adds the harness's own node to cfg, its kubelet patch written
// below dir.
func withOwnNode(cfg *v1alpha4.Cluster, dir string) error {
	host := filepath.Join(dir, "own-node-patches")
	if err := os.MkdirAll(host, 0o755); err != nil {
		return err
	}
	patch, err := ownKubeletConfig()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(host, ownNodeKubeletPatch), patch, 0o644); err != nil {
		return err
	}
	cfg.Nodes = append(cfg.Nodes, v1alpha4.Node{
		Role:                 v1alpha4.WorkerRole,
		Labels:               map[string]string{clusternodes.HollowLabel: "true"},
		KubeadmConfigPatches: ownNodeJoinPatches(),
		ExtraMounts:          []v1alpha4.Mount{{HostPath: host, ContainerPath: ownNodePatchDir, Readonly: true}},
	})
	return nil
}

// splitOwnNodes moves the nodes labelled as the harness's own out of the
// workers: they are listed last (Nodes), after the nodes every other spec
// uses, which stay as they were.
func (c *kindCluster) splitOwnNodes(ctx context.Context, client kubernetes.Interface) error {
	list, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: clusternodes.HollowLabel + "=true"})
	if err != nil {
		return fmt.Errorf("kind cluster %s: list the harness's own nodes: %w", c.name, err)
	}
	c.ownNodes = nil
	for _, n := range list.Items {
		if i := slices.Index(c.workers, n.Name); i >= 0 {
			c.workers = slices.Delete(c.workers, i, i+1)
			c.ownNodes = append(c.ownNodes, n.Name)
		}
	}
	slices.Sort(c.ownNodes)
	return nil
}

// untaintLoneControlPlane does what kind does for a cluster of one node:
// where no worker but the harness's own is left for the scheduler, the
// control planes take the cluster's pods, so their NoSchedule taint goes.
func (c *kindCluster) untaintLoneControlPlane(ctx context.Context, client kubernetes.Interface) error {
	if len(c.workers) > 0 || len(c.ownNodes) == 0 {
		return nil
	}
	for _, name := range c.controlPlanes {
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			n, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			kept := slices.DeleteFunc(slices.Clone(n.Spec.Taints), func(t corev1.Taint) bool {
				return t.Key == controlPlaneTaint && t.Effect == corev1.TaintEffectNoSchedule
			})
			if len(kept) == len(n.Spec.Taints) {
				return nil
			}
			n.Spec.Taints = kept
			_, err = client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return fmt.Errorf("kind node %s: remove taint %s: %w", name, controlPlaneTaint, err)
		}
	}
	return nil
}

// controlPlaneTaint is kubeadm's taint of control-plane nodes.
const controlPlaneTaint = "node-role.kubernetes.io/control-plane"

// kubeletNodes are every node with a kubelet specs may use: workers, control
// planes, then the harness's own.
func (c *kindCluster) kubeletNodes() []string {
	return slices.Concat(c.workers, c.controlPlanes, c.ownNodes)
}

// ownNodesPhrase is what Topology says of the harness's own nodes.
func (c *kindCluster) ownNodesPhrase() string {
	if len(c.ownNodes) == 0 {
		return ""
	}
	return ", and the harness's own node " + strings.Join(c.ownNodes, ", ")
}
