package kind

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/constants"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/exec"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	clusternodes "github.com/admission-conformance/admission-conformance/framework/nodes"
)

// apiserverPort is where kubeadm's apiserver listens on each control-plane
// node (kind's common.APIServerInternalPort).
const apiserverPort = "6443"

// kindCluster is a running kind cluster.
type kindCluster struct {
	provider *kindcluster.Provider
	name     string
	dir      string
	ownDir   bool
	logger   logr.Logger

	created, keep bool   // created by this run; keep it after Stop
	ledger        string // where a created cluster is written down

	auditLogs     []string // per replica, created clusters only
	kubeconfig    []byte
	config        *rest.Config
	replicas      []*rest.Config
	controlPlanes []string
	workers       []string // other than the harness's own
	ownNodes      []string // the harness's own (ownnode.go)
	gateway       string
	stopped       bool
	served        features.Set // cluster.ServedFeatures

	pluginHosts map[string]clusternodes.PluginHost // by node name: created clusters' nodes whose kubelet hosts plugins
	notHosted   string                             // why some or all nodes host none
	balanced    bool                               // Service webhooks balanced per request (loadBalancing)
	notBalanced string

	// staticDirs are each replica's static manifest directories on this
	// host and staticProbes what the first requests to each met (created
	// clusters whose node image has the gate on); staticReason says why
	// there are none.
	staticDirs   []map[cluster.StaticPlugin]string
	staticProbes []cluster.StaticBootProbe
	staticReason string
}

// load reads what the harness needs from the running cluster.
func (c *kindCluster) load(ctx context.Context) error {
	raw, err := c.provider.KubeConfig(c.name, false)
	if err != nil {
		return fmt.Errorf("kubeconfig of kind cluster %s: %w", c.name, err)
	}
	c.kubeconfig = []byte(raw)
	if c.config, err = clientcmd.RESTConfigFromKubeConfig(c.kubeconfig); err != nil {
		return fmt.Errorf("kubeconfig of kind cluster %s: %w", c.name, err)
	}
	all, err := c.provider.ListNodes(c.name)
	if err != nil {
		return fmt.Errorf("nodes of kind cluster %s: %w", c.name, err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].String() < all[j].String() })
	var first nodes.Node
	for _, n := range all {
		role, err := n.Role()
		if err != nil {
			return fmt.Errorf("role of kind node %s: %w", n, err)
		}
		switch role {
		case constants.ControlPlaneNodeRoleValue:
			ip, _, err := n.IP()
			if err != nil {
				return fmt.Errorf("address of kind node %s: %w", n, err)
			}
			replica := rest.CopyConfig(c.config)
			replica.Host = "https://" + net.JoinHostPort(ip, apiserverPort)
			c.replicas = append(c.replicas, replica)
			c.controlPlanes = append(c.controlPlanes, n.String())
		case constants.WorkerNodeRoleValue:
			c.workers = append(c.workers, n.String())
		default:
			continue // the external load balancer
		}
		if first == nil {
			first = n
		}
	}
	if first == nil {
		return fmt.Errorf("kind cluster %s has no nodes", c.name)
	}
	if len(c.staticDirs) > 0 {
		if err := c.probeStatic(ctx); err != nil {
			return err
		}
	}
	if c.gateway, err = gateway(ctx, first); err != nil {
		return err
	}
	if err := c.waitNodesReady(ctx); err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(c.config)
	if err != nil {
		return err
	}
	if err := c.splitOwnNodes(ctx, client); err != nil {
		return err
	}
	if c.created {
		if err := c.untaintLoneControlPlane(ctx, client); err != nil {
			return err
		}
	}
	// The kubelets wrote kubelet.json when they started, before their nodes
	// became ready: a short wait covers a slow file system only.
	if err := c.loadPluginHosts(ctx, 2*time.Second, 100*time.Millisecond); err != nil {
		return err
	}
	if c.served, err = cluster.ServedFeatures(c.config); err != nil {
		return fmt.Errorf("kind cluster %s: discovery: %w", c.name, err)
	}
	if err := c.loadBalancing(ctx); err != nil {
		return err
	}
	if c.created {
		if err := grantPodStatusAccess(ctx, client); err != nil {
			return err
		}
		if err := describeNodes(ctx, client, c.kubeletNodes()); err != nil {
			return err
		}
	}
	return c.warmUp(ctx)
}

// gateway is the address under which the node reaches this host: its
// default route's gateway (the kind network's bridge on this host).
func gateway(ctx context.Context, n nodes.Node) (string, error) {
	cmd := n.CommandContext(ctx, "ip", "-4", "route", "show", "default")
	lines, err := exec.OutputLines(cmd)
	if err != nil {
		return "", fmt.Errorf("host address seen from kind node %s: %w", n, errors.Join(err, runErrorOutput(err)))
	}
	for _, l := range lines {
		// default via 172.18.0.1 dev eth0
		f := strings.Fields(l)
		if len(f) >= 3 && f[0] == "default" && f[1] == "via" && net.ParseIP(f[2]) != nil {
			return f[2], nil
		}
	}
	return "", fmt.Errorf("host address seen from kind node %s: no default route in %q", n, lines)
}

// Provider implements cluster.Cluster.
func (c *kindCluster) Provider() string { return Name }

// RESTConfig implements cluster.Cluster: kind's kubeconfig (the load balancer
// in front of several control planes).
func (c *kindCluster) RESTConfig() *rest.Config { return rest.CopyConfig(c.config) }

// ReplicaConfigs implements cluster.Cluster: each control-plane node's
// apiserver at its address on the kind network (its serving certificate
// carries that address).
func (c *kindCluster) ReplicaConfigs() []*rest.Config { return cluster.CopyConfigs(c.replicas) }

// Nodes implements cluster.Cluster: workers first, then control planes, then
// the harness's own node; all run real kubelets, and those whose kubelet
// hosts the reference KEP-2823 plugin host declare NodeAdmissionPlugins.
func (c *kindCluster) Nodes() []cluster.Node {
	var out []cluster.Node
	for _, n := range c.kubeletNodes() {
		caps := features.NewSet(features.NodeAdmission)
		if _, ok := c.pluginHosts[n]; ok {
			caps[features.NodeAdmissionPlugins] = struct{}{}
		}
		out = append(out, cluster.Node{Name: n, Capabilities: caps})
	}
	return out
}

// Capabilities implements cluster.Cluster. Each apiserver is a real
// kube-apiserver with its own metrics; the fake webhooks on this host are
// reachable at the gateway address; a created cluster's audit logs are
// readable here, and so are its static manifest directories; features
// whose API the apiservers serve (cluster.ServedFeatures) are found by
// discovery; NodeAdmissionPlugins when some node's kubelet hosts the
// reference plugin host.
func (c *kindCluster) Capabilities() features.Set {
	s := features.NewSet(features.APIServerMetrics, features.HostWebhooksReachable,
		features.WebhookConfigurationOrder, features.ParallelValidatingWebhooks,
		features.Scheduler, features.ControllerManager, features.NodeAdmission).Union(c.served)
	if len(c.pluginHosts) > 0 {
		s[features.NodeAdmissionPlugins] = struct{}{}
	}
	// A Service whose EndpointSlice names this host: the apiservers call its
	// ClusterIP, and kube-proxy on their node forwards to the endpoint.
	if _, err := fakewebhook.ExternalIPv4(); err == nil {
		s[features.WebhookServiceReference] = struct{}{}
		if c.balanced {
			s[features.WebhookRoundTripLoadBalancing] = struct{}{}
		}
	}
	if len(c.replicas) > 1 {
		s[features.MultipleAPIServers] = struct{}{}
	}
	if len(c.auditLogs) > 0 && len(c.auditLogs) == len(c.replicas) {
		s[features.AuditLog] = struct{}{}
	}
	if len(c.staticDirs) > 0 && len(c.staticDirs) == len(c.replicas) {
		s[features.StaticAdmissionManifests] = struct{}{}
	}
	return s
}

// AuditLogPaths implements cluster.AuditLog: each control plane's audit
// log, written through a mount into the provider's work dir (clusters the
// provider created; a reused cluster has none).
func (c *kindCluster) AuditLogPaths() []string { return append([]string(nil), c.auditLogs...) }

// WebhookHost implements cluster.WebhookHost.
func (c *kindCluster) WebhookHost() string { return c.gateway }

// Topology implements cluster.Cluster.
func (c *kindCluster) Topology() string {
	how := "created"
	if !c.created {
		how = "reused"
	}
	return fmt.Sprintf("kind %s (%s): %d control plane(s), %d worker(s)%s", c.name, how, len(c.controlPlanes), len(c.workers), c.ownNodesPhrase())
}

// Kubeconfig is the cluster's kubeconfig (as `kind get kubeconfig` prints).
func (c *kindCluster) Kubeconfig() []byte { return append([]byte(nil), c.kubeconfig...) }

// Name is the kind cluster's name.
func (c *kindCluster) Name() string { return c.name }

// Stop implements cluster.Cluster: it deletes a cluster this run created
// (unless kept) and never one it reused.
func (c *kindCluster) Stop(context.Context) error {
	if c.stopped {
		return nil
	}
	c.stopped = true
	var errs []error
	if c.created && !c.keep {
		if err := c.provider.Delete(c.name, filepath.Join(c.dir, "kubeconfig")); err != nil {
			errs = append(errs, fmt.Errorf("delete kind cluster %s: %w", c.name, err))
		} else {
			forgetCluster(c.ledger, c.name)
		}
	} else if c.created {
		forgetCluster(c.ledger, c.name) // kept on purpose: not a leftover
		c.logger.Info("keeping kind cluster", "name", c.name)
	}
	if c.ownDir && !(c.created && c.keep) {
		errs = append(errs, os.RemoveAll(c.dir))
	} else if c.ownDir {
		c.logger.Info("keeping the kept cluster's audit logs and kubeconfig", "dir", c.dir)
	}
	return errors.Join(errs...)
}

var _ cluster.WebhookHost = (*kindCluster)(nil)
