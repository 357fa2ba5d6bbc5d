package nodeset

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/nodeset/hollow"
)

// Options say which nodes to start and how to reach the cluster.
type Options struct {
	// Specs has one entry per node: node-<i> is shaped by Specs[i].
	Specs []Spec
	// Dir is the run's temp dir; each node gets Dir/nodes/<name>.
	Dir string
	// Server is the apiserver URL the kubelets talk to; CACertFile verifies
	// its certificate.
	Server, CACertFile string
	// ClientCA is the CA the apiserver trusts for client certificates; it
	// signs each node's identity.
	ClientCA *pki.CA
	// Admin reaches the cluster to watch the nodes come up and warm up.
	Admin *rest.Config
	// Log receives the kubelets' output.
	Log io.Writer
	// ReadyTimeout bounds registration and readiness, WarmUpTimeout the
	// warm-up; Poll is the gap between probes.
	ReadyTimeout, WarmUpTimeout, Poll time.Duration
	Logger                            logr.Logger
}

// Start starts the nodes side by side and returns once every one is Ready
// and warmed up. On failure it stops what it started.
func Start(ctx context.Context, o Options) (_ *Set, err error) {
	if len(o.Specs) < 1 {
		return nil, fmt.Errorf("need at least one node, got %d", len(o.Specs))
	}
	client, err := kubernetes.NewForConfig(o.Admin)
	if err != nil {
		return nil, err
	}
	if err := grantPodStatusAccess(ctx, client); err != nil {
		return nil, err
	}
	s := &Set{}
	defer func() {
		if err != nil {
			_ = s.Stop(0)
		}
	}()
	for i, spec := range o.Specs {
		// However many nodes are asked for, an interrupt (ctx) stops the
		// start-up between two of them.
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("node start-up stopped after %d of %d node(s): %w", i, len(o.Specs), err)
		}
		n, err := startNode(o, spec, fmt.Sprintf("node-%d", i))
		if n != nil {
			s.nodes = append(s.nodes, n)
		}
		if err != nil {
			return nil, err
		}
	}
	started := time.Now()
	for _, n := range s.nodes {
		if err := waitReady(ctx, client, n, o.ReadyTimeout, o.Poll); err != nil {
			return nil, err
		}
	}
	o.Logger.V(1).Info("nodes ready", "count", len(s.nodes), "elapsed", time.Since(started))
	if err := warmUp(ctx, client, s.nodes, o); err != nil {
		return nil, err
	}
	o.Logger.V(1).Info("nodes warmed up", "elapsed", time.Since(started))
	return s, nil
}

// startNode lays out the node's dir and starts its process.
func startNode(o Options, spec Spec, name string) (*node, error) {
	dir := filepath.Join(o.Dir, "nodes", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	kubeconfig, err := writeKubeconfig(dir, name, o.Server, o.CACertFile, o.ClientCA)
	if err != nil {
		return nil, fmt.Errorf("%s: credentials: %w", name, err)
	}
	c := hollow.Config{
		Name: name, Dir: dir, Kubeconfig: kubeconfig,
		Labels:            map[string]string{},
		MaxPods:           spec.MaxPods,
		ExtendedResources: spec.ExtendedResources,
		QPS:               spec.QPS, Burst: int(2 * spec.QPS),
		Broken:       spec.Broken,
		Verbosity:    spec.Verbosity,
		FeatureGates: spec.FeatureGates,
	}
	for k, v := range spec.Labels {
		c.Labels[k] = v
	}
	if spec.PluginHost {
		c.Plugins = &hollow.PluginHost{
			ConfigDir:        filepath.Join(dir, "plugins", "conf"),
			PluginDir:        filepath.Join(dir, "plugins", "bin"),
			Timeout:          bounds.D(spec.PluginTimeout),
			FailOpen:         spec.PluginsFailOpen,
			RejectLate:       spec.PluginsRejectLate,
			IgnoreRejections: spec.PluginsIgnoreRejections,
		}
		for _, d := range []string{c.Plugins.ConfigDir, c.Plugins.PluginDir, stateDir(dir)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, err
			}
		}
	}
	configFile := filepath.Join(dir, "node.json")
	if err := hollow.WriteConfig(configFile, c); err != nil {
		return nil, err
	}
	proc, err := childproc.Start(childproc.Spec{Name: name, Role: RoleHollowNode, Config: configFile, Log: o.Log, Prefix: name + ": "})
	if err != nil {
		return nil, err
	}
	return &node{config: c, proc: proc}, nil
}

func stateDir(nodeDir string) string { return filepath.Join(nodeDir, "plugins", "state") }
