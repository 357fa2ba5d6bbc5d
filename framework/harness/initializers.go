package harness

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/reference/initializers/install"
)

// ReferenceInitializers says whether Boot installs the project's reference
// implementation of seed 002's initializers (reference/initializers) once
// the cluster is up, and how.
type ReferenceInitializers struct {
	Install bool
	// Fault breaks it on purpose, for the harness's own tests: one of
	// InitializersReverseOrder, InitializersNoTimeouts,
	// InitializersNoReadRepair, InitializersSlowPoll.
	Fault string
}

// The faults of the reference initializers.
const (
	// InitializersReverseOrder merges configurations in reverse name order.
	InitializersReverseOrder = "reverse-order"
	// InitializersNoTimeouts never enforces an initializer's timeout.
	InitializersNoTimeouts = "no-timeouts"
	// InitializersNoReadRepair never sweeps for pods past the global
	// timeout.
	InitializersNoReadRepair = "no-read-repair"
	// InitializersSlowPoll reads the configurations every 3 s, not every
	// 1 s as the seed's poller does: changes take effect late.
	InitializersSlowPoll = "slow-poll"
)

// InitializersFaults lists every fault of the reference initializers, in
// the order help and errors name them.
var InitializersFaults = []string{InitializersReverseOrder, InitializersNoTimeouts, InitializersNoReadRepair, InitializersSlowPoll}

// slowPollInterval is the InitializersSlowPoll poller's period.
const slowPollInterval = 3 * time.Second

// CheckInitializersFault rejects an unknown fault.
func CheckInitializersFault(fault string) error {
	if fault == "" || slices.Contains(InitializersFaults, fault) {
		return nil
	}
	return fmt.Errorf("unknown reference initializers fault %q: use %s", fault, InitializersFaultChoices())
}

// InitializersFaultChoices names every fault as "a, b, c or d".
func InitializersFaultChoices() string {
	last := len(InitializersFaults) - 1
	return strings.Join(InitializersFaults[:last], ", ") + " or " + InitializersFaults[last]
}

// InitializersSuite is the suite whose namespaces (and mutating webhook
// configurations) the harness's installation of the reference initializers
// acts on, so it never touches the objects of other suites.
const InitializersSuite = "initializers"

// installReferenceInitializers installs the reference implementation,
// scoped to this run's initializers-suite namespaces, and declares
// features.ReferenceInitializers. Its webhook runs in this process, so the
// apiservers must be able to call the harness's host.
func (e *Env) installReferenceInitializers(ctx context.Context, cfg Config) error {
	if err := CheckInitializersFault(cfg.ReferenceInitializers.Fault); err != nil {
		return err
	}
	if !e.Supported.Has(features.HostWebhooksReachable) {
		e.Logger.Info("reference initializers not installed: the cluster's apiservers cannot reach this host")
		return nil
	}
	if _, relayed := e.Cluster.(interface{ WebhookEndpoint() (string, string) }); relayed {
		// Its webhook listens on its own port, which a relay in the cluster
		// (or an in-cluster run's Service) does not forward.
		if _, inCluster := e.Cluster.(cluster.WebhookNames); inCluster {
			e.Logger.Info("reference initializers not installed: the cluster reaches this in-cluster run through its Service's one port")
		} else {
			e.Logger.Info("reference initializers not installed: the cluster reaches this host through a relay")
		}
		return nil
	}
	if ok, err := e.mayInstallReferenceInitializers(ctx); err != nil || !ok {
		return err
	}
	scope := map[string]string{RunLabel: e.RunID, SuiteLabel: InitializersSuite}
	listen := ""
	if h, ok := e.Cluster.(cluster.WebhookHost); ok {
		// Apiservers in containers reach this host at the bridge's address.
		listen = net.JoinHostPort(h.WebhookHost(), "0")
	}
	var pollInterval time.Duration // the seed's 1 s (install's default)
	if cfg.ReferenceInitializers.Fault == InitializersSlowPoll {
		pollInterval = slowPollInterval
	}
	started := time.Now()
	e.initializersTried = true
	inst, err := install.Install(ctx, e.Cluster.RESTConfig(), install.Options{
		ListenAddress:     listen,
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: scope},
		ExemptSelector:    metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: scope}),
		// Each spec's configurations apply to its own namespace only, so
		// specs do not see each other's and may run at the same time.
		ScopeLabel:     NamespaceLabel,
		Labels:         map[string]string{RunLabel: e.RunID},
		Hosts:          cfg.WebhookHosts,
		ReadyTimeout:   e.Bounds.WebhookReady.Duration,
		Poll:           e.Bounds.PollInterval.Duration,
		ReverseOrder:   cfg.ReferenceInitializers.Fault == InitializersReverseOrder,
		NoTimeouts:     cfg.ReferenceInitializers.Fault == InitializersNoTimeouts,
		NoReadRepair:   cfg.ReferenceInitializers.Fault == InitializersNoReadRepair,
		PollInterval:   pollInterval,
		GlobalTimeout:  e.Bounds.InitializerGlobalTimeout.Duration,
		RepairInterval: e.Bounds.InitializerRepairInterval.Duration,
		// Their controller's own lines (an event not recorded in a
		// namespace being deleted, ...) are a component's output: klog's,
		// which a run sends to components.log, not the progress output.
		Logger:  klog.Background().WithName("reference-initializers"),
		Serving: pki.ServingFunc("admission-conformance-initializers"),
		// The harness's own tests pause a run here (Hooks).
		AfterRBAC: cfg.Hooks.InitializersRBAC,
	})
	if err != nil {
		return fmt.Errorf("%w (to run without them: --reference-initializers=false; if they are installed already, claim --supported-features %s)",
			err, features.ReferenceInitializers)
	}
	e.initializers = inst
	if e.Installed == nil {
		e.Installed = features.Set{}
	}
	e.Installed[features.ReferenceInitializers] = struct{}{}
	e.Supported = e.Supported.Union(e.Installed)
	e.Logger.Info("reference initializers installed", "elapsed", time.Since(started).Round(time.Millisecond).String(),
		"fault", cfg.ReferenceInitializers.Fault)
	return nil
}

// ScopedInitializers reports whether the harness installed the reference
// initializers, scoping each InitializerConfiguration to the namespace its
// NamespaceLabel names (otherwise, installed elsewhere and claimed, they
// apply to every namespace they act on).
func (e *Env) ScopedInitializers() bool { return e.initializers != nil }

// closeReferenceInitializers uninstalls the reference implementation.
func (e *Env) closeReferenceInitializers(ctx context.Context) error {
	if e.initializers == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, e.Bounds.Cleanup.Duration)
	defer cancel()
	return e.initializers.Close(ctx)
}

// sweepReferenceInitializers deletes the reference implementation's objects
// and the InitializerConfigurations specs created that selector matches.
func sweepReferenceInitializers(ctx context.Context, config *rest.Config, selector string) error {
	return install.Sweep(ctx, config, selector)
}
