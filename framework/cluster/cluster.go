// Package cluster defines what the harness needs from a cluster, whichever way
// it was brought up: a front door, one door per apiserver replica, the nodes,
// and the features it can claim.
package cluster

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/features"
)

// Provider brings a cluster up. Providers are small and stateless; all state
// lives in the Cluster they return.
type Provider interface {
	// Name is what users type after --provider.
	Name() string
	// Start brings the cluster up, or fails having rolled back everything it
	// started. The error names the component that failed.
	Start(ctx context.Context) (Cluster, error)
}

// Cluster is a running cluster.
type Cluster interface {
	// Provider is the name of the provider that started the cluster.
	Provider() string
	// RESTConfig reaches the cluster through its front door (a load balancer
	// when there are several apiservers). Callers get a copy.
	RESTConfig() *rest.Config
	// ReplicaConfigs reaches each apiserver replica directly, so that
	// propagation can be measured on every replica. Callers get copies.
	ReplicaConfigs() []*rest.Config
	// Nodes are the nodes the harness may place pods on.
	Nodes() []Node
	// Capabilities are the features this cluster can be checked for without
	// the user claiming them.
	Capabilities() features.Set
	// Topology is a short description such as "embedded: 3 apiservers, 0 nodes".
	Topology() string
	// Stop tears the cluster down (or, for clusters the harness did not
	// create, releases what the harness holds). It is safe to call twice.
	Stop(ctx context.Context) error
}

// Node is a node the harness may schedule pods to.
type Node struct {
	Name         string
	Capabilities features.Set
}

// AuditLog is implemented by clusters whose audit log the harness can read.
type AuditLog interface {
	// AuditLogPaths returns one audit log file per apiserver replica, in the
	// order of ReplicaConfigs.
	AuditLogPaths() []string
}

// NodesStarting is implemented by clusters whose nodes may still be
// starting when Start returns (embedded.WithNodesInBackground): until
// NodesStarted is closed the cluster has no nodes; then it has them, or
// NodesErr says why not.
type NodesStarting interface {
	NodesStarted() <-chan struct{}
	NodesErr() error
}

// Disposable is implemented by clusters that Stop deletes whole (the
// embedded cluster; a kind cluster the run created and does not keep):
// what a case leaves in one goes with it. A case there deletes only what
// keeps acting after it (its pods and what makes pods), not its namespace:
// the namespace controller's deletion of a namespace costs the apiserver
// about 90 requests, and with one namespace per case that was most of a
// run's apiserver work.
type Disposable interface {
	Disposable() bool
}

// IsDisposable reports whether c is a Disposable cluster that says so.
func IsDisposable(c Cluster) bool {
	d, ok := c.(Disposable)
	return ok && d.Disposable()
}

// SharedMetrics is implemented by clusters whose apiserver replicas share
// one metrics registry, so every replica's /metrics shows the totals of all.
// (The embedded replicas run in one process and register into the
// process-wide legacy registry.)
type SharedMetrics interface {
	MetricsShared() bool
}

// MetricsConfigs returns the configs to scrape so that each count is seen
// once: every replica, or one where the replicas share their metrics.
func MetricsConfigs(c Cluster) []*rest.Config {
	replicas := c.ReplicaConfigs()
	if s, ok := c.(SharedMetrics); ok && s.MetricsShared() && len(replicas) > 1 {
		return replicas[:1]
	}
	return replicas
}

// Registry maps provider names to constructors, so the CLI can reject an
// unknown --provider before it touches anything.
type Registry map[string]func() Provider

// Lookup returns the provider for name or an error listing the known ones.
func (r Registry) Lookup(name string) (Provider, error) {
	if newProvider, ok := r[name]; ok {
		return newProvider(), nil
	}
	known := make([]string, 0, len(r))
	for k := range r {
		known = append(known, k)
	}
	sort.Strings(known)
	return nil, fmt.Errorf("unknown provider %q: use one of %v", name, known)
}

// CopyConfigs returns deep copies, so callers can't change a cluster's configs.
func CopyConfigs(configs []*rest.Config) []*rest.Config {
	out := make([]*rest.Config, len(configs))
	for i, c := range configs {
		out[i] = rest.CopyConfig(c)
	}
	return out
}

// NotDeclared is implemented by clusters that can say why they do not
// declare a feature their kind of cluster may have: the physical reason a
// case needing it is not supported (a kind node image whose kubelet hosts no
// node plugins, a reused cluster the provider did not set up).
type NotDeclared interface {
	// NotDeclaredReasons maps features the cluster does not declare to why.
	NotDeclaredReasons() map[features.Name]string
}

// NotDeclaredReason is why c does not declare f, or "" if it cannot say.
func NotDeclaredReason(c Cluster, f features.Name) string {
	if n, ok := c.(NotDeclared); ok {
		return n.NotDeclaredReasons()[f]
	}
	return ""
}
