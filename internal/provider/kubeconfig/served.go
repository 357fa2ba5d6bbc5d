package kubeconfig

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
)

// WithServedWebhooks is for a harness that runs in a pod of the cluster
// (run --in-cluster, internal/clusterrun): its fake webhooks listen at
// listen (":8443") and the apiservers call them at advertise (the pod's
// Service, ClusterIP:443); their certificate carries the Service's DNS
// names too. No relay, no port-forward.
func WithServedWebhooks(listen, advertise string, names ...string) Option {
	return optionFunc(func(p *Provider) {
		p.served = &served{listen: listen, advertise: advertise, names: append([]string(nil), names...)}
	})
}

// served is an existing cluster whose apiservers call the harness's
// webhook server through a Service in front of the harness's own pod.
type served struct {
	*existing
	listen, advertise string
	names             []string
}

// WebhookEndpoint implements cluster.WebhookEndpoint.
func (c *served) WebhookEndpoint() (string, string) { return c.listen, c.advertise }

// WebhookNames implements cluster.WebhookNames.
func (c *served) WebhookNames() []string { return append([]string(nil), c.names...) }

// Capabilities adds HostWebhooksReachable: the apiservers reach the
// harness's webhook server (it runs in the cluster).
func (c *served) Capabilities() features.Set {
	return c.existing.Capabilities().Union(features.NewSet(features.HostWebhooksReachable))
}

func (c *served) Topology() string {
	return c.existing.Topology() + ", harness in the cluster, webhooks at " + c.advertise
}

// serviceProxySync is how long after one node's proxy routes a Service's new
// endpoint the other nodes' proxies may still lag (kube-proxy applies
// changes at most once a second): the apiservers may sit on other nodes.
const serviceProxySync = 2 * time.Second

// AwaitWebhookRoute implements cluster.WebhookRoute. The Service's endpoint
// is this pod, ready once it started; until kube-proxy has programmed it, a
// connection to the ClusterIP is refused, and so would the apiservers' first
// calls be. It dials the advertised address (through this node's proxy, back
// to this pod) every poll until a connection is accepted, then gives the other nodes'
// proxies serviceProxySync.
func (c *served) AwaitWebhookRoute(ctx context.Context, poll time.Duration) error {
	var dialer net.Dialer
	var last error
	for {
		conn, err := dialer.DialContext(ctx, "tcp", c.advertise)
		if err == nil {
			_ = conn.Close()
			break
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("the webhooks' Service %s does not route to this pod (last: %v): "+
				"check that kube-proxy (or the CNI's service proxy) runs and that pods may reach themselves through their Service", c.advertise, last)
		case <-time.After(poll):
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(serviceProxySync):
		return nil
	}
}

var (
	_ cluster.WebhookRoute    = (*served)(nil)
	_ cluster.WebhookEndpoint = (*served)(nil)
	_ cluster.WebhookNames    = (*served)(nil)
)
