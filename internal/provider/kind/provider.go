package kind

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
)

// Name is the provider's name on the command line.
const Name = "kind"

// NamePrefix starts the name of every cluster the provider names itself.
const NamePrefix = "admission-conformance-"

// Provider creates (or reuses) a kind cluster.
type Provider struct {
	topology Topology
	image    string
	name     string
	keep     bool
	wait     time.Duration
	logger   logr.Logger
	workDir  string
	ledger   string
	broken   Broken

	pluginHost PluginHost
}

// New returns a kind provider.
func New(opts ...Option) *Provider {
	p := &Provider{topology: Single, wait: 3 * time.Minute, logger: logr.Discard()}
	for _, o := range opts {
		o.apply(p)
	}
	if p.ledger == "" {
		p.ledger = DefaultLedgerDir()
	}
	return p
}

// Name implements cluster.Provider.
func (p *Provider) Name() string { return Name }

func (p *Provider) kind() *kindcluster.Provider {
	return kindcluster.NewProvider(kindcluster.ProviderWithDocker(), kindcluster.ProviderWithLogger(kindLogger{p.logger}))
}

// Start implements cluster.Provider. kind's API takes no context: when ctx
// ends during creation, Start waits for kind to return, deletes the cluster
// and reports ctx's error.
func (p *Provider) Start(ctx context.Context) (_ cluster.Cluster, err error) {
	if err := CheckDocker(ctx); err != nil {
		return nil, err
	}
	k := p.kind()
	name := p.name
	if name == "" {
		name = NamePrefix + randomSuffix()
	}
	existing, err := k.List()
	if err != nil {
		return nil, fmt.Errorf("list kind clusters: %w", err)
	}
	dir := p.workDir
	ownDir := dir == ""
	if ownDir {
		if dir, err = rundir.Create("", rundir.KindPrefix); err != nil {
			return nil, err
		}
	}
	c := &kindCluster{provider: k, name: name, dir: dir, ownDir: ownDir, logger: p.logger}
	defer func() {
		if err != nil {
			_ = c.Stop(context.Background())
		}
	}()
	if slices.Contains(existing, name) {
		p.logger.Info("reusing existing kind cluster", "name", name)
		c.staticReason = reusedStaticReason
		p.logger.Info("static admission manifests not set up", "reason", c.staticReason)
	} else {
		cfg, err := p.clusterConfig(ctx, c)
		if err != nil {
			return nil, err
		}
		if err := withNodePlugins(cfg, dir, p.pluginHost); err != nil {
			return nil, err
		}
		if err := p.create(ctx, k, name, cfg, filepath.Join(dir, "kubeconfig")); err != nil {
			// create rolled back; c owns nothing in the docker engine.
			return nil, err
		}
		c.created, c.keep, c.ledger = true, p.keep, p.ledger
	}
	if err := c.load(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// clusterConfig is the configuration of a cluster the provider creates
// for c: the topology's nodes, each control plane's audit log and, where
// the node image's Kubernetes has the gate on, its static manifest
// directories (c records the host paths of both).
func (p *Provider) clusterConfig(ctx context.Context, c *kindCluster) (*v1alpha4.Cluster, error) {
	cfg := p.topology.config()
	if err := withOwnNode(cfg, c.dir); err != nil {
		return nil, err
	}
	logs, audit, err := withAudit(cfg, c.dir)
	if err != nil {
		return nil, err
	}
	c.auditLogs = logs
	settings := []apiserverSetting{routingSetting, audit}
	if p.image != "" {
		if err := CheckImage(ctx, p.image); err != nil {
			return nil, err
		}
	}
	kubeVersion, err := ImageKubernetesVersion(ctx, p.image)
	if err != nil {
		c.staticReason = err.Error()
	} else {
		c.staticReason = staticUnsupported(p.image, kubeVersion)
	}
	if c.staticReason == "" {
		dirs, static, err := withStatic(cfg, c.dir, p.broken)
		if err != nil {
			return nil, err
		}
		c.staticDirs = dirs
		settings = append(settings, static)
	} else {
		p.logger.Info("static admission manifests not set up", "reason", c.staticReason)
	}
	cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches, apiserverPatches(settings...)...)
	return cfg, nil
}

// create makes the cluster, recorded in the ledger while it exists.
func (p *Provider) create(ctx context.Context, k *kindcluster.Provider, name string, cfg *v1alpha4.Cluster, kubeconfig string) error {
	if p.image != "" {
		if err := CheckImage(ctx, p.image); err != nil {
			return err
		}
	}
	if err := recordCluster(p.ledger, name); err != nil {
		return err
	}
	opts := []kindcluster.CreateOption{
		kindcluster.CreateWithV1Alpha4Config(cfg),
		kindcluster.CreateWithKubeconfigPath(kubeconfig),
		kindcluster.CreateWithWaitForReady(p.wait),
		kindcluster.CreateWithDisplayUsage(false),
		kindcluster.CreateWithDisplaySalutation(false),
	}
	if p.image != "" {
		opts = append(opts, kindcluster.CreateWithNodeImage(p.image))
	}
	started := time.Now()
	p.logger.Info("creating kind cluster", "name", name, "topology", p.topology, "image", p.image)
	done := make(chan error, 1)
	go func() { done <- k.Create(name, opts...) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		<-done // kind cannot be interrupted; wait, then remove what it made
		err = ctx.Err()
	}
	if err != nil {
		_ = k.Delete(name, kubeconfig)
		forgetCluster(p.ledger, name)
		return fmt.Errorf("create kind cluster %s (%s, image %s): %w", name, p.topology, imageName(p.image), errors.Join(err, runErrorOutput(err)))
	}
	p.logger.Info("kind cluster created", "name", name, "seconds", time.Since(started).Seconds())
	return nil
}

func imageName(image string) string {
	if image == "" {
		return "kind's default"
	}
	return image
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
