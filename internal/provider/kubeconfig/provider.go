// Package kubeconfig is the provider for a cluster that already exists: the
// harness reaches it through a kubeconfig and never creates or deletes it.
package kubeconfig

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Name is the provider's name on the command line.
const Name = "kubeconfig"

// Option configures the provider. Options are sealed.
type Option interface{ apply(*Provider) }

type optionFunc func(*Provider)

func (f optionFunc) apply(p *Provider) { f(p) }

// WithPath names the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).
func WithPath(path string) Option { return optionFunc(func(p *Provider) { p.path = path }) }

// WithContext names the kubeconfig context (default: the current one).
func WithContext(name string) Option { return optionFunc(func(p *Provider) { p.context = name }) }

// WithReachTimeout bounds the check that the cluster answers.
func WithReachTimeout(d time.Duration) Option { return optionFunc(func(p *Provider) { p.reach = d }) }

// WithNodeAdmissionNodes names nodes of the cluster whose kubelets run
// Kubernetes' own admission code (real kubelets): the node admission specs
// place their pods there by spec.nodeName. The cluster then declares
// NodeAdmission; Start checks that the nodes exist.
func WithNodeAdmissionNodes(names ...string) Option {
	return optionFunc(func(p *Provider) { p.nodes = append([]string(nil), names...) })
}

// WithSpecs names the specs the run may select (nil: every registered
// spec): the preflight asks only for the rights they need.
func WithSpecs(specs []spec.Spec) Option {
	return optionFunc(func(p *Provider) { p.specs = specs })
}

// Provider reaches an existing cluster.
type Provider struct {
	path, context string
	reach         time.Duration
	webhookHost   string
	pluginImage   string
	served        *served
	nodes         []string
	logger        logr.Logger
	noPreflight   bool
	specs         []spec.Spec
}

// New returns a kubeconfig provider.
func New(opts ...Option) *Provider {
	p := &Provider{reach: 15 * time.Second, logger: logr.Discard()}
	for _, o := range opts {
		o.apply(p)
	}
	return p
}

// Name implements cluster.Provider.
func (p *Provider) Name() string { return Name }

// LoadConfig reads the kubeconfig without contacting the cluster.
func (p *Provider) LoadConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if p.path != "" {
		rules.ExplicitPath = p.path
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules,
		&clientcmd.ConfigOverrides{CurrentContext: p.context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot use kubeconfig %s (%v): give --kubeconfig a readable kubeconfig file", describe(p.path), oneLine(err))
	}
	return cfg, nil
}

// Start implements cluster.Provider: it loads the kubeconfig and checks that
// the cluster answers, so a bad kubeconfig fails before any spec runs.
func (p *Provider) Start(ctx context.Context) (cluster.Cluster, error) {
	cfg, err := p.LoadConfig()
	if err != nil {
		return nil, err
	}
	probe := rest.CopyConfig(cfg)
	probe.Timeout = p.reach
	client, err := kubernetes.NewForConfig(probe)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", describe(p.path), err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		return nil, fmt.Errorf("cluster at %s does not answer (%v): check the kubeconfig and that the cluster is up", cfg.Host, oneLine(err))
	}
	if err := p.preflight(ctx, cfg); err != nil {
		return nil, err
	}
	for _, n := range p.nodes {
		if _, err := client.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{}); err != nil {
			return nil, fmt.Errorf("node %s of --node-admission-nodes: %v: name nodes of this cluster (kubectl get nodes)", n, oneLine(err))
		}
	}
	base := &existing{config: cfg, nodes: p.nodes}
	if p.served != nil {
		c := *p.served
		c.existing = base
		return &c, nil
	}
	if p.pluginImage != "" {
		c, err := p.startRelay(ctx, cfg, base)
		if err != nil {
			return nil, err // not a nil *relayed in a non-nil interface
		}
		return c, nil
	}
	return p.wrap(base), nil
}

// existing is a cluster the harness did not create; nodes are those the
// user named as running real kubelets.
type existing struct {
	config *rest.Config
	nodes  []string
}

func (c *existing) Provider() string               { return Name }
func (c *existing) RESTConfig() *rest.Config       { return rest.CopyConfig(c.config) }
func (c *existing) ReplicaConfigs() []*rest.Config { return []*rest.Config{rest.CopyConfig(c.config)} }

// Nodes implements cluster.Cluster: the nodes the user named, each with
// NodeAdmission.
func (c *existing) Nodes() []cluster.Node {
	var out []cluster.Node
	for _, n := range c.nodes {
		out = append(out, cluster.Node{Name: n, Capabilities: features.NewSet(features.NodeAdmission)})
	}
	return out
}
func (c *existing) Topology() string           { return "existing cluster at " + c.config.Host }
func (c *existing) Stop(context.Context) error { return nil }

// Capabilities holds only the controller manager, which every conformant
// cluster runs: on a cluster the harness did not build, every optional
// feature must be claimed by the user, and the harness's host webhook server
// is not assumed reachable.
// With nodes named, it adds NodeAdmission: the user vouched for their kubelets.
func (c *existing) Capabilities() features.Set {
	s := features.NewSet(features.ControllerManager)
	if len(c.nodes) > 0 {
		s[features.NodeAdmission] = struct{}{}
	}
	return s
}

func describe(path string) string {
	if path == "" {
		return "(default loading rules)"
	}
	// A path with a newline or another control character (fuzzing found
	// one) is quoted, so the error stays one readable line.
	if strings.ContainsFunc(path, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(path)
	}
	return path
}

type oneLineError struct{ msg string }

func (e oneLineError) Error() string { return e.msg }

// oneLine folds multi-line client errors so the CLI can print one line.
func oneLine(err error) error {
	msg := []rune(err.Error())
	for i, r := range msg {
		if r == '\n' {
			msg[i] = ' '
		}
	}
	return oneLineError{string(msg)}
}
