// Package harness is what specs stand on: the run's environment (cluster,
// fake webhook server, bounds, supported features), a per-spec Framework with
// its own namespace, and helpers that register scoped webhooks and wait until
// they are enforced. Framework code returns errors; specs assert.
package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
)

// Labels the harness puts on everything it creates, so a sweep can find it.
const (
	RunLabel    = "admission-conformance.io/run"
	SpecLabel   = "admission-conformance.io/spec"
	MarkerLabel = "admission-conformance.io/marker"
	// SuiteLabel scopes what acts on one suite's objects alone (the
	// reference initializers act on the initializers suite's namespaces).
	SuiteLabel = "admission-conformance.io/suite"
	// NamespaceLabel names the one namespace an object acts on: the
	// reference initializers the harness installs apply an
	// InitializerConfiguration only to pods in the namespace it names.
	NamespaceLabel = "admission-conformance.io/namespace"
)

// Config is what Boot needs.
type Config struct {
	Provider cluster.Provider
	Bounds   bounds.Bounds
	// Claimed are features the user says the implementation supports.
	Claimed features.Set
	// WebhookHosts are extra names or IPs the fake webhook's certificate
	// carries, for apiservers that reach the harness by another address.
	WebhookHosts []string
	Logger       logr.Logger
	// ReferenceInitializers installs the reference implementation of the
	// seed's initializers (see initializers.go).
	ReferenceInitializers ReferenceInitializers
	// RunID labels what the run creates (RunLabel); empty: a random one.
	// An in-cluster run gets the ID its client chose, so one ID finds both
	// the run's pod and what its specs create.
	RunID string
	// Engine is the run's internal parts (required).
	Engine
}

// Env is one run's environment, shared by all specs of the run.
type Env struct {
	Cluster   cluster.Cluster
	Webhooks  *fakewebhook.Server
	Bounds    bounds.Bounds
	Supported features.Set
	RunID     string
	Logger    logr.Logger
	// KubernetesVersion is what the cluster's discovery reports.
	KubernetesVersion string
	// Installed are the features the harness installed itself (reference
	// implementations); they are in Supported too.
	Installed features.Set
	// NodeSlot says which of the nodes with a capability this process's
	// cases use: in a parallel run, the node its unit holds
	// (parallel.Unit.NodeSlot); 0, the first, otherwise.
	NodeSlot int
	// quiet holds other processes' configuration writes off while a case
	// measuring enforcement runs (spec.Isolation.Quiet), and tells when
	// each kind was last written; local in a process that runs every case
	// of the run itself, one at a time.
	quiet *quiet.Gate
	// absences are the observations a case of the run waited for in vain;
	// rights tells what the run's user lacks; fields records the cases'
	// use of the admission API's fields: the engine's, from Config or
	// AttachConfig.
	absences     Absences
	rights       Rights
	fields       Fields
	initializers closer
	// initializersTried: this run began installing the reference
	// initializers (its sweep then looks for their objects).
	initializersTried bool
	// notInstalledWhy says why the harness did not install a feature it
	// installs where it may (the reference initializers).
	notInstalledWhy map[features.Name]string
	// attached: a worker's environment (Attach); the cluster and what is
	// in it belong to another process.
	attached bool
	// impersonation holds, per identity.Name, the rights to impersonate it
	// the run's user lacks ([]string), asked once per process.
	impersonation sync.Map
	// specRights holds, per spec short name, the rights only that spec
	// needs which the run's user lacks ([]string), asked once per process.
	specRights sync.Map
}

// closer is something Close stops.
type closer interface{ Close(context.Context) error }

// Boot starts the cluster and the fake webhook server. On failure nothing is
// left running. It is the engine's (internal/engine, internal/suitetest):
// a spec never boots, it gets the run's Env through its Framework; a
// vendor's binary runs through conformance.Main or conformance.RunTest.
func Boot(ctx context.Context, cfg Config) (_ *Env, err error) {
	if cfg.Logger.GetSink() == nil {
		cfg.Logger = logr.Discard()
	}
	if err := cfg.Bounds.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Engine.validate(); err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	env := &Env{Bounds: cfg.Bounds, Logger: cfg.Logger, RunID: cfg.RunID, quiet: quiet.Local(), absences: cfg.Absences, rights: cfg.Rights,
		fields: cfg.Fields}
	if env.RunID == "" {
		env.RunID = newRunID()
	}
	defer func() {
		// A panic here is a bug; it must still stop what started.
		if r := recover(); r != nil {
			err = fmt.Errorf("harness set-up: panic: %v", r)
			// The CLI sends stderr to components.log while it runs.
			fmt.Fprintf(os.Stderr, "%v\n%s", err, debug.Stack())
		}
		if err != nil {
			_ = env.Close(context.Background())
		}
	}()
	startCtx, cancel := context.WithTimeout(ctx, cfg.Bounds.ClusterStart.Duration)
	defer cancel()
	if env.Cluster, err = cfg.Provider.Start(startCtx); err != nil {
		return nil, err
	}
	if cfg.Hooks.ClusterStarted != nil {
		cfg.Hooks.ClusterStarted()
	}
	client, err := kubernetes.NewForConfig(env.Cluster.RESTConfig())
	if err != nil {
		return nil, err
	}
	version, err := client.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("cluster does not answer discovery: %w", err)
	}
	env.KubernetesVersion = version.GitVersion
	if v, ok := env.Cluster.(interface{ KubernetesVersion() string }); ok && strings.HasPrefix(version.GitVersion, "v0.0.0") {
		// A control plane built from the k8s.io/kubernetes module without
		// Kubernetes' release ldflags reports v0.0.0; the provider knows better.
		env.KubernetesVersion = v.KubernetesVersion()
	}

	ca, err := pki.NewCA("admission-conformance-webhooks-" + env.RunID)
	if err != nil {
		return nil, err
	}
	webhookOpts := []fakewebhook.Option{fakewebhook.WithHosts(cfg.WebhookHosts...), fakewebhook.WithLogger(cfg.Logger),
		fakewebhook.WithFieldPaths(cfg.Fields.Paths)}
	if h, ok := env.Cluster.(cluster.WebhookHost); ok {
		// Apiservers in containers reach this host at the bridge's address.
		webhookOpts = append(webhookOpts, fakewebhook.WithListenAddress(net.JoinHostPort(h.WebhookHost(), "0")), fakewebhook.WithHosts(h.WebhookHost()))
	}
	if e, ok := env.Cluster.(cluster.WebhookEndpoint); ok {
		// Apiservers reach this host through a relay in the cluster.
		listen, advertise := e.WebhookEndpoint()
		webhookOpts = append(webhookOpts, fakewebhook.WithListenAddress(listen), fakewebhook.WithAdvertisedAddress(advertise))
	}
	if n, ok := env.Cluster.(cluster.WebhookNames); ok {
		// Apiservers know the server by a Service's names too.
		webhookOpts = append(webhookOpts, fakewebhook.WithHosts(n.WebhookNames()...))
	}
	if env.Webhooks, err = fakewebhook.New(ca, webhookOpts...); err != nil {
		return nil, fmt.Errorf("start fake webhook server: %w", err)
	}
	if r, ok := env.Cluster.(cluster.WebhookRoute); ok {
		routeCtx, cancel := context.WithTimeout(startCtx, cfg.Bounds.WebhookReady.Duration)
		err := r.AwaitWebhookRoute(routeCtx, cfg.Bounds.PollInterval.Duration)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	env.Supported = env.Cluster.Capabilities().Union(cfg.Claimed)
	if cfg.ReferenceInitializers.Install {
		if err := env.installReferenceInitializers(startCtx, cfg); err != nil {
			return nil, err
		}
	}
	return env, nil
}

// Close removes what the run left in the cluster, then stops the webhook
// server and the cluster. It is safe on a partly booted Env.
func (e *Env) Close(ctx context.Context) error {
	var errs []error
	errs = append(errs, e.closeReferenceInitializers(ctx))
	if e.Cluster != nil && !e.attached {
		sweepCtx, cancel := context.WithTimeout(ctx, e.Bounds.Cleanup.Duration)
		errs = append(errs, sweep(sweepCtx, e.Cluster.RESTConfig(), e.RunID, e.initializersTried, !cluster.IsDisposable(e.Cluster)))
		cancel()
	}
	if e.Webhooks != nil {
		errs = append(errs, e.Webhooks.Close(ctx))
	}
	if e.Cluster != nil {
		errs = append(errs, e.Cluster.Stop(ctx))
	}
	return errors.Join(errs...)
}

// NewRunID returns a fresh run ID: 8 hex digits.
func NewRunID() string { return newRunID() }

func newRunID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// current is the environment of the run in progress. Ginkgo specs are
// declared at package init, before any environment exists, so they reach it
// through Current at run time. It is set once per process by Use.
var current struct {
	sync.RWMutex
	env *Env
}

// Use makes env the environment specs see. Entry points (the CLI, each
// suite's go test) call it once, before running specs.
func Use(env *Env) {
	current.Lock()
	defer current.Unlock()
	current.env = env
}

// Absences are the observations a case of the run waited for in vain: a
// case needing one waits less once another has.
func (e *Env) Absences() Absences { return e.absences }

// Current returns the environment set by Use, or an error if none was.
func Current() (*Env, error) {
	current.RLock()
	defer current.RUnlock()
	if current.env == nil {
		return nil, errors.New("no environment: run specs through run-conformance or a suite's go test")
	}
	return current.env, nil
}
