package main

import (
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"

	"github.com/admission-conformance/admission-conformance/framework/cluster/kind"
)

// kindOptions are the kind provider's settings (options file: `kind:`).
type kindOptions struct {
	Topology string `json:"topology,omitempty"`
	Image    string `json:"image,omitempty"`
	Cluster  string `json:"cluster,omitempty"`
	Keep     bool   `json:"keepCluster,omitempty"`
}

func (k *kindOptions) addFlags(fs *pflag.FlagSet) {
	if k.Topology == "" {
		k.Topology = string(kind.Single)
	}
	fs.StringVar(&k.Topology, "kind-topology", k.Topology, "kind cluster shape (provider kind): single (1 node), multi (1 control plane + 2 workers), ha (3 control planes + 1 worker)")
	fs.StringVar(&k.Image, "kind-image", k.Image, "kind node image (provider kind; default: kind's default, which needs a registry; offline: build one with `make kind-image`)")
	fs.StringVar(&k.Cluster, "kind-cluster", k.Cluster, "kind cluster name (provider kind): an existing cluster of that name is reused and left running; default: a new cluster per run")
	fs.BoolVar(&k.Keep, "keep-cluster", k.Keep, "leave the kind cluster this run created running (provider kind)")
}

// validateKind checks the kind flags and that no other provider's are set.
func (o *runOptions) validateKind() error {
	if o.Kubeconfig != "" || o.Context != "" {
		return usageError("--kubeconfig and --context go with --provider kubeconfig")
	}
	if o.APIServers != 1 || len(o.APIServerArgs) > 0 || len(o.EtcdDelays) > 0 {
		return usageError("--apiservers, --apiserver-arg and --etcd-delay go with --provider embedded (for several apiservers use --kind-topology ha)")
	}
	if _, err := kind.ParseTopology(o.Kind.Topology); err != nil {
		return usageError("--kind-topology: %v", err)
	}
	if o.Kind.Image != "" {
		if err := checkImageRef("--kind-image", o.Kind.Image, false); err != nil {
			return err
		}
	}
	if err := checkKindClusterName(o.Kind.Cluster); err != nil {
		return err
	}
	return nil
}

func (o *runOptions) kindProvider(logger logr.Logger) *kind.Provider {
	topology, _ := kind.ParseTopology(o.Kind.Topology) // validated in load
	return kind.New(
		kind.WithTopology(topology),
		kind.WithNodeImage(o.Kind.Image),
		kind.WithClusterName(o.Kind.Cluster),
		kind.WithKeepCluster(o.Kind.Keep),
		kind.WithWaitForReady(o.Bounds.ClusterStart.Duration),
		kind.WithLogger(logger),
	)
}
