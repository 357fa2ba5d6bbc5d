// Package attached is both ends of the attach file (parallel.Attach): the
// parent describes the environment it booted, a worker makes an environment
// of it whose cluster is the parent's (Stop does nothing) and whose fake
// webhook server is its own.
package attached

import (
	"context"
	"fmt"
	"net"
	"path/filepath"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/internal/absence"
	"github.com/admission-conformance/admission-conformance/internal/engineparts"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
)

// Describe captures env (booted by harness.Boot) for workers. webhookHosts
// are the extra names the run's webhook certificates carry. A cluster
// behind a relay (cluster.WebhookEndpoint) needs relay set: the parent's
// router (see Router).
func Describe(env *harness.Env, webhookHosts []string, routing *parallel.Routing) (parallel.Attach, error) {
	c := env.Cluster
	front, err := parallel.EndpointOf(c.RESTConfig())
	if err != nil {
		return parallel.Attach{}, err
	}
	a := parallel.Attach{
		RunID: env.RunID, Provider: c.Provider(), Topology: c.Topology(), KubernetesVersion: env.KubernetesVersion,
		Front: front, Capabilities: parallel.SortedNames(c.Capabilities()),
		Supported: parallel.SortedNames(env.Supported), Installed: parallel.SortedNames(env.Installed),
		Bounds: env.Bounds, WebhookHosts: webhookHosts, Routing: routing,
	}
	for _, r := range c.ReplicaConfigs() {
		e, err := parallel.EndpointOf(r)
		if err != nil {
			return parallel.Attach{}, err
		}
		a.Replicas = append(a.Replicas, e)
	}
	hosts, _ := c.(nodes.PluginHosts)
	for _, n := range c.Nodes() {
		a.Nodes = append(a.Nodes, parallel.Node{Name: n.Name, Capabilities: parallel.SortedNames(n.Capabilities)})
		if hosts == nil {
			continue
		}
		if h, ok := hosts.NodePluginHost(n.Name); ok {
			if a.PluginHosts == nil {
				a.PluginHosts = map[string]parallel.PluginHost{}
			}
			a.PluginHosts[n.Name] = parallel.PluginHost{ConfigDir: h.ConfigDir, PluginDir: h.PluginDir, StateDir: h.StateDir, Timeout: h.Timeout, Exec: h.Exec}
		}
	}
	if l, ok := c.(cluster.AuditLog); ok {
		a.AuditLogs = l.AuditLogPaths()
	}
	a.Disposable = cluster.IsDisposable(c)
	if s, ok := c.(cluster.SharedMetrics); ok {
		a.MetricsShared = s.MetricsShared()
	}
	if s, ok := c.(cluster.StaticManifests); ok {
		a.StaticDirs, a.StaticProbes = s.StaticManifestDirs(), s.StaticBootProbes()
	}
	if n, ok := c.(cluster.NotDeclared); ok {
		a.NotDeclared = n.NotDeclaredReasons()
	}
	if h, ok := c.(cluster.WebhookHost); ok {
		a.WebhookHost = h.WebhookHost()
	}
	if _, ok := c.(cluster.WebhookEndpoint); ok && routing == nil {
		return parallel.Attach{}, fmt.Errorf("the cluster reaches the webhooks through a relay, and no router forwards to the workers")
	}
	return a, nil
}

// Cluster is the parent's cluster as a worker sees it. It implements
// cluster.Cluster, cluster.SharedMetrics, cluster.Faults and nodes.PluginHosts;
// auditCluster adds cluster.AuditLog when the file lists audit logs. It
// never implements WebhookHost or WebhookEndpoint: Env sets up the worker's
// webhook server from the file itself.
type Cluster struct {
	a        parallel.Attach
	front    *rest.Config
	replicas []*rest.Config
}

// auditCluster is a Cluster whose audit logs can be read.
type auditCluster struct{ *Cluster }

// AuditLogPaths implements cluster.AuditLog.
func (c auditCluster) AuditLogPaths() []string { return append([]string(nil), c.a.AuditLogs...) }

// New makes the cluster a describes.
func New(a parallel.Attach) cluster.Cluster {
	c := &Cluster{a: a, front: a.Front.Config()}
	for _, r := range a.Replicas {
		c.replicas = append(c.replicas, r.Config())
	}
	if len(a.AuditLogs) > 0 {
		return auditCluster{c}
	}
	return c
}

// Provider implements cluster.Cluster.
func (c *Cluster) Provider() string { return c.a.Provider }

// RESTConfig implements cluster.Cluster.
func (c *Cluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.front) }

// ReplicaConfigs implements cluster.Cluster.
func (c *Cluster) ReplicaConfigs() []*rest.Config { return cluster.CopyConfigs(c.replicas) }

// Nodes implements cluster.Cluster.
func (c *Cluster) Nodes() []cluster.Node {
	out := make([]cluster.Node, len(c.a.Nodes))
	for i, n := range c.a.Nodes {
		out[i] = cluster.Node{Name: n.Name, Capabilities: parallel.SetOf(n.Capabilities)}
	}
	return out
}

// Capabilities implements cluster.Cluster.
func (c *Cluster) Capabilities() features.Set { return parallel.SetOf(c.a.Capabilities) }

// Topology implements cluster.Cluster.
func (c *Cluster) Topology() string { return c.a.Topology }

// Stop implements cluster.Cluster: the cluster is the parent's to stop.
func (c *Cluster) Stop(context.Context) error { return nil }

// Disposable implements cluster.Disposable: the parent's cluster is.
func (c *Cluster) Disposable() bool { return c.a.Disposable }

// MetricsShared implements cluster.SharedMetrics.
func (c *Cluster) MetricsShared() bool { return c.a.MetricsShared }

// StaticManifestDirs implements cluster.StaticManifests.
func (c *Cluster) StaticManifestDirs() []map[cluster.StaticPlugin]string { return c.a.StaticDirs }

// StaticBootProbes implements cluster.StaticManifests.
func (c *Cluster) StaticBootProbes() []cluster.StaticBootProbe { return c.a.StaticProbes }

// NotDeclaredReasons implements cluster.NotDeclared.
func (c *Cluster) NotDeclaredReasons() map[features.Name]string { return c.a.NotDeclared }

// NodePluginHost implements nodes.PluginHosts.
func (c *Cluster) NodePluginHost(node string) (nodes.PluginHost, bool) {
	h, ok := c.a.PluginHosts[node]
	if !ok {
		return nodes.PluginHost{}, false
	}
	return nodes.PluginHost{ConfigDir: h.ConfigDir, PluginDir: h.PluginDir, StateDir: h.StateDir, Timeout: h.Timeout, Exec: h.Exec}, true
}

// DeadNodes implements cluster.Faults with what the parent recorded (no
// node is dead when the parent cannot tell, or the file cannot be read).
func (c *Cluster) DeadNodes() map[string]error {
	if c.a.DeadNodes == "" {
		return nil
	}
	dead, err := parallel.ReadDeadNodes(c.a.DeadNodes)
	if err != nil {
		return nil
	}
	return dead
}

var (
	_ cluster.Faults          = (*Cluster)(nil)
	_ cluster.Cluster         = (*Cluster)(nil)
	_ cluster.SharedMetrics   = (*Cluster)(nil)
	_ cluster.Disposable      = (*Cluster)(nil)
	_ cluster.StaticManifests = (*Cluster)(nil)
	_ nodes.PluginHosts       = (*Cluster)(nil)
	_ cluster.AuditLog        = auditCluster{}
)

// Env makes a worker's environment from a: the parent's cluster and a fake
// webhook server of the worker's own, listening where the apiservers reach
// this host; extra are further options of that server (the harness's own
// tests' injected errors).
func Env(a parallel.Attach, logger logr.Logger, extra ...fakewebhook.Option) (*harness.Env, error) {
	opts := append([]fakewebhook.Option(nil), extra...)
	opts = append(opts, fakewebhook.WithHosts(a.WebhookHosts...))
	if a.WebhookHost != "" {
		opts = append(opts, fakewebhook.WithListenAddress(net.JoinHostPort(a.WebhookHost, "0")), fakewebhook.WithHosts(a.WebhookHost))
	}
	var ca *pki.CA
	if a.Routing != nil {
		var err error
		if ca, err = pki.LoadCA(a.Routing.CACert, a.Routing.CAKey); err != nil {
			return nil, fmt.Errorf("the run's webhook CA: %w", err)
		}
		route, err := parallel.NewRoute()
		if err != nil {
			return nil, err
		}
		// Reached by the router on loopback, advertised at the relay with
		// the route in front of every path.
		opts = append(opts, fakewebhook.WithListenAddress("127.0.0.1:0"), fakewebhook.WithAdvertisedAddress(a.Routing.Advertise),
			fakewebhook.WithPathPrefix(parallel.RoutePrefix(route)))
		env, err := attach(a, ca, opts, logger)
		if err != nil {
			return nil, err
		}
		if err := parallel.Announce(a.Routing.Dir, route, env.Webhooks.ListenAddress()); err != nil {
			_ = env.Close(context.Background())
			return nil, err
		}
		return env, nil
	}
	return attach(a, ca, opts, logger)
}

func attach(a parallel.Attach, ca *pki.CA, opts []fakewebhook.Option, logger logr.Logger) (*harness.Env, error) {
	engine := engineparts.Run()
	var err error
	if engine.Absences, err = sharedAbsences(a.SharedDir); err != nil {
		return nil, err
	}
	return harness.Attach(harness.AttachConfig{
		Cluster: New(a), RunID: a.RunID, KubernetesVersion: a.KubernetesVersion, Bounds: a.Bounds,
		Supported: parallel.SetOf(a.Supported), Installed: parallel.SetOf(a.Installed),
		CA: ca, Webhook: opts, SharedDir: a.SharedDir, Engine: engine, Logger: logger,
	})
}

// sharedAbsences is the run's register of vain waits: in sharedDir, which
// the run's workers share, beside their quiet windows; in memory for a
// worker that is the run's only one (no sharedDir).
func sharedAbsences(sharedDir string) (*absence.Register, error) {
	if sharedDir == "" {
		return absence.Local(), nil
	}
	return absence.Open(filepath.Join(sharedDir, "absences"))
}
