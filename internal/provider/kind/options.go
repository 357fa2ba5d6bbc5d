package kind

import (
	"time"

	"github.com/go-logr/logr"
)

// Option configures the provider. Options are sealed.
type Option interface{ apply(*Provider) }

type optionFunc func(*Provider)

func (f optionFunc) apply(p *Provider) { f(p) }

// WithTopology picks single, multi or ha (default single).
func WithTopology(t Topology) Option { return optionFunc(func(p *Provider) { p.topology = t }) }

// WithNodeImage sets the node image (default: kind's default for its
// version, which needs a registry; offline hosts build one with
// `make kind-image`).
func WithNodeImage(image string) Option { return optionFunc(func(p *Provider) { p.image = image }) }

// WithClusterName names the cluster. If a kind cluster of that name exists it
// is reused and left running; otherwise it is created under that name.
func WithClusterName(name string) Option { return optionFunc(func(p *Provider) { p.name = name }) }

// WithKeepCluster leaves a cluster the provider created running after Stop.
func WithKeepCluster(keep bool) Option { return optionFunc(func(p *Provider) { p.keep = keep }) }

// WithWaitForReady bounds kind's wait for the control plane to be Ready.
func WithWaitForReady(d time.Duration) Option { return optionFunc(func(p *Provider) { p.wait = d }) }

// WithLogger receives kind's status lines and the provider's own.
func WithLogger(l logr.Logger) Option { return optionFunc(func(p *Provider) { p.logger = l }) }

// WithWorkDir is where the provider keeps the cluster's kubeconfig (default:
// a temp dir removed on Stop).
func WithWorkDir(dir string) Option { return optionFunc(func(p *Provider) { p.workDir = dir }) }

// WithLedgerDir is where created clusters are written down until deleted
// (default DefaultLedgerDir()).
func WithLedgerDir(dir string) Option { return optionFunc(func(p *Provider) { p.ledger = dir }) }

// WithBroken breaks the provider's set-up on purpose, as b says: for the
// harness's own tests only (the specs must fail on it), never for a
// conformance run.
func WithBroken(b Broken) Option { return optionFunc(func(p *Provider) { p.broken = b }) }
