package kubeconfig

import (
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
)

// WithServedWebhooks is for a harness that runs in a pod of the cluster
// (run --in-cluster, framework/incluster): its fake webhooks listen at
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

var (
	_ cluster.WebhookEndpoint = (*served)(nil)
	_ cluster.WebhookNames    = (*served)(nil)
)
