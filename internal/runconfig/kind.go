package runconfig

import (
	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// KindOptions are the kind provider's settings (options file: `kind:`).
type KindOptions struct {
	Topology string `json:"topology,omitempty"`
	Image    string `json:"image,omitempty"`
	Cluster  string `json:"cluster,omitempty"`
	Keep     bool   `json:"keepCluster,omitempty"`
}

// validateKind checks the kind flags and that no other provider's are set.
func (o *Config) validateKind() error {
	if o.Kubeconfig != "" || o.Context != "" {
		return exitcode.Usagef("--kubeconfig and --context go with --provider kubeconfig")
	}
	if o.APIServers != 1 || len(o.APIServerArgs) > 0 || len(o.EtcdDelays) > 0 {
		return exitcode.Usagef("--apiservers, --apiserver-arg and --etcd-delay go with --provider embedded (for several apiservers use --kind-topology ha)")
	}
	if _, err := kind.ParseTopology(o.Kind.Topology); err != nil {
		return exitcode.Usagef("--kind-topology: %v", err)
	}
	if o.Kind.Image != "" {
		if err := check.ImageRef("--kind-image", o.Kind.Image, false); err != nil {
			return err
		}
	}
	if err := check.KindClusterName(o.Kind.Cluster); err != nil {
		return err
	}
	return nil
}

// KindProvider is the kind provider this configuration describes.
func (o *Config) KindProvider(logger logr.Logger) *kind.Provider {
	topology, _ := kind.ParseTopology(o.Kind.Topology) // validated in load
	opts := []kind.Option{
		kind.WithTopology(topology),
		kind.WithNodeImage(o.Kind.Image),
		kind.WithClusterName(o.Kind.Cluster),
		kind.WithKeepCluster(o.Kind.Keep),
		kind.WithWaitForReady(o.Bounds.ClusterStart.Duration),
		kind.WithLogger(logger),
		kind.WithPluginHost(o.KindPluginHost()),
	}
	if testhook.Fault(testhook.KindStaticNeverReloads) {
		// The harness's own tests only: no flag sets it.
		opts = append(opts, kind.WithBroken(kind.StaticNeverReloads))
	}
	return kind.New(opts...)
}
