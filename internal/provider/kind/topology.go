package kind

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
)

// Topology is the shape of a cluster the provider creates.
type Topology string

// The topologies.
const (
	Single Topology = "single" // one control-plane node (kind untaints it)
	Multi  Topology = "multi"  // one control plane, two workers
	HA     Topology = "ha"     // three control planes behind a load balancer, one worker
)

// Topologies lists the known topologies, for flags and errors.
var Topologies = []Topology{Single, Multi, HA}

// ParseTopology checks a --kind-topology value.
func ParseTopology(s string) (Topology, error) {
	for _, t := range Topologies {
		if string(t) == s {
			return t, nil
		}
	}
	names := make([]string, len(Topologies))
	for i, t := range Topologies {
		names[i] = string(t)
	}
	return "", fmt.Errorf("unknown kind topology %q: use %s", s, strings.Join(names, ", "))
}

func (t Topology) counts() (controlPlanes, workers int) {
	switch t {
	case Multi:
		return 1, 2
	case HA:
		return 3, 1
	default:
		return 1, 0
	}
}

// kubeletPatch lets Kubernetes >= 1.35 kubelets start on cgroup v1 hosts
// (this machine type is one); it changes nothing on cgroup v2.
const kubeletPatch = `kind: KubeletConfiguration
failCgroupV1: false
`

// kubeProxyPatch has kube-proxy program a Service's rules as soon as it
// changes, not at most once a second (iptables.minSyncPeriod, 1 s by
// default): a webhook named by clientConfig.service is reached through its
// ClusterIP, and the specs measure how soon a change to the webhook is
// enforced, which that batching would otherwise add to.
const kubeProxyPatch = `kind: KubeProxyConfiguration
iptables:
  minSyncPeriod: 0s
`

// controllerManagerPatches let the namespace controller keep up with a
// run, one per kubeadm config version (v1beta4 list extraArgs, v1beta3
// map). Every case deletes its namespace as it ends (a kind cluster is not
// disposable), hundreds within a minute; with kube-controller-manager's
// defaults (10 namespaces at once, 20 requests/s) the controller fell 460
// namespaces behind on a single-node cluster, so a namespace a spec deleted
// and waited for was gone only after the objectState wait (30 s).
var controllerManagerPatches = []string{`apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
controllerManager:
  extraArgs:
  - name: concurrent-namespace-syncs
    value: "50"
  - name: kube-api-qps
    value: "100"
  - name: kube-api-burst
    value: "200"
`, `apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
controllerManager:
  extraArgs:
    concurrent-namespace-syncs: "50"
    kube-api-qps: "100"
    kube-api-burst: "200"
`}

// config is the kind cluster configuration for t.
func (t Topology) config() *v1alpha4.Cluster {
	cps, workers := t.counts()
	cfg := &v1alpha4.Cluster{
		TypeMeta:             v1alpha4.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		KubeadmConfigPatches: append([]string{kubeletPatch, kubeProxyPatch}, controllerManagerPatches...),
	}
	add := func(role v1alpha4.NodeRole, n int) {
		for range n {
			cfg.Nodes = append(cfg.Nodes, v1alpha4.Node{Role: role})
		}
	}
	add(v1alpha4.ControlPlaneRole, cps)
	add(v1alpha4.WorkerRole, workers)
	return cfg
}
