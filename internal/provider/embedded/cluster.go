package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// Cluster is a running embedded cluster.
type Cluster struct {
	dir            string
	apiserverCount int
	kubeconfig     string

	etcd        *etcdServer
	delays      []*delayProxy
	apiservers  []*apiServer
	lb          *loadBalancer
	scheduler   *scheduler
	controllers *controllerManager
	scheduled   bool
	controlled  bool
	balanced    bool // Service webhooks balanced per request (balancedPerRequest)
	// served are the features whose API the apiservers serve
	// (cluster.ServedFeatures).
	served  features.Set
	nodesMu sync.Mutex
	nodes   *nodeset.Set
	// background is set when the nodes start after Start returns.
	background *backgroundNodes

	config   *rest.Config
	replicas []*rest.Config
	// staticDirs are each replica's static manifest directories, and
	// staticProbes what the first requests to each met; both empty when the
	// apiservers run without static manifests (staticManifestsOn).
	staticDirs   []map[cluster.StaticPlugin]string
	staticProbes []cluster.StaticBootProbe

	stopOnce sync.Once
	stopErr  error
}

var _ cluster.Cluster = (*Cluster)(nil)
var _ cluster.AuditLog = (*Cluster)(nil)

// Provider implements cluster.Cluster.
func (c *Cluster) Provider() string { return Name }

// RESTConfig implements cluster.Cluster.
func (c *Cluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.config) }

// ReplicaConfigs implements cluster.Cluster.
func (c *Cluster) ReplicaConfigs() []*rest.Config { return cluster.CopyConfigs(c.replicas) }

// Dir is the run's temp dir; everything the cluster wrote is below it.
func (c *Cluster) Dir() string { return c.dir }

// Kubeconfig is an admin kubeconfig for this cluster, inside Dir.
func (c *Cluster) Kubeconfig() string { return c.kubeconfig }

// Capabilities implements cluster.Cluster.
func (c *Cluster) Capabilities() features.Set {
	s := features.NewSet(features.AuditLog, features.APIServerMetrics, features.HostWebhooksReachable,
		features.WebhookConfigurationOrder, features.ParallelValidatingWebhooks).Union(c.served)
	if len(c.apiservers) > 1 {
		s[features.MultipleAPIServers] = struct{}{}
	}
	if len(c.staticDirs) > 0 {
		s[features.StaticAdmissionManifests] = struct{}{}
	}
	if c.scheduled {
		s[features.Scheduler] = struct{}{}
	}
	if c.controlled {
		s[features.ControllerManager] = struct{}{}
	}
	if _, err := fakewebhook.ExternalIPv4(); err == nil {
		s[features.WebhookServiceReference] = struct{}{} // an endpoint address the apiserver accepts
		if c.balanced {
			s[features.WebhookRoundTripLoadBalancing] = struct{}{}
		}
	}
	return s.Union(c.nodeCapabilities())
}

// Topology implements cluster.Cluster.
func (c *Cluster) Topology() string {
	return fmt.Sprintf("embedded: %d apiserver(s), scheduler %t, controller-manager %t, %d node(s)",
		c.apiserverCount, c.scheduled, c.controlled, len(c.nodeSet().Names()))
}

// Disposable implements cluster.Disposable: Stop removes the cluster and
// its data directory.
func (c *Cluster) Disposable() bool { return true }

// MetricsShared implements cluster.SharedMetrics: the replicas are in one
// process and share its metrics registry.
func (c *Cluster) MetricsShared() bool { return true }

// AuditLogPaths implements cluster.AuditLog.
func (c *Cluster) AuditLogPaths() []string {
	paths := make([]string, len(c.apiservers))
	for i, a := range c.apiservers {
		paths[i] = a.auditLog
	}
	return paths
}

// Stop stops the components in reverse order of start and removes the temp
// dir. Components that never started are skipped, so Start uses Stop to roll
// back. A component whose stop panics does not keep the others running or
// the dir in place: the panic becomes Stop's error.
func (c *Cluster) Stop(context.Context) error {
	c.stopOnce.Do(func() {
		var errs []error
		step := func(name string, stop func()) {
			defer func() {
				if r := recover(); r != nil {
					errs = append(errs, fmt.Errorf("embedded: stop %s: panic: %v", name, r))
				}
			}()
			stop()
		}
		step("nodes", func() {
			if err := c.stopNodes(); err != nil {
				errs = append(errs, err)
			}
		})
		if c.controllers != nil {
			step("kube-controller-manager", c.controllers.stop)
		}
		if c.scheduler != nil {
			step("kube-scheduler", c.scheduler.stop)
		}
		if c.lb != nil {
			step("load balancer", c.lb.stop)
		}
		for i := len(c.apiservers) - 1; i >= 0; i-- {
			step(fmt.Sprintf("kube-apiserver[%d]", i), c.apiservers[i].stop)
		}
		for _, d := range c.delays {
			step("etcd delay proxy", d.stop)
		}
		if c.etcd != nil {
			step("etcd", func() {
				c.etcd.stop()
				testhook.Panic(testhook.EmbeddedStop)
			})
		}
		if err := rundir.Remove(c.dir); err != nil {
			errs = append(errs, fmt.Errorf("embedded: remove %s: %w", c.dir, err))
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

func zapSink(w io.Writer) zapcore.WriteSyncer { return zapcore.AddSync(w) }

// KubernetesVersion is the k8s.io/kubernetes module version the control
// plane was built from.
func (c *Cluster) KubernetesVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/kubernetes" {
				return dep.Version
			}
		}
	}
	// A test binary may carry no dependency list: the minor this harness
	// is pinned to is still known.
	return "v" + kubecompat.Minor
}
