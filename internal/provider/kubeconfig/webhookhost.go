package kubeconfig

import (
	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
)

// WithWebhookHost names an address of this host that the cluster's
// apiservers reach (for a kind cluster: its network's gateway, e.g.
// 172.18.0.1). The harness's fake webhooks then listen there, their
// certificate carries it, and the cluster declares HostWebhooksReachable.
// Without it, specs that need the fake webhooks are not supported.
func WithWebhookHost(addr string) Option {
	return optionFunc(func(p *Provider) { p.webhookHost = addr })
}

// WithLogger receives the preflight's report.
func WithLogger(l logr.Logger) Option { return optionFunc(func(p *Provider) { p.logger = l }) }

// WithoutPreflight skips the RBAC check (the plan is still logged).
func WithoutPreflight() Option { return optionFunc(func(p *Provider) { p.noPreflight = true }) }

// reachable is an existing cluster that calls webhooks on this host.
type reachable struct {
	*existing
	host string
}

func (c *reachable) WebhookHost() string { return c.host }

func (c *reachable) Capabilities() features.Set {
	return c.existing.Capabilities().Union(features.NewSet(features.HostWebhooksReachable))
}

func (c *reachable) Topology() string {
	return c.existing.Topology() + ", webhooks at " + c.host
}

// wrap returns the cluster the provider hands out.
func (p *Provider) wrap(c *existing) cluster.Cluster {
	if p.webhookHost == "" {
		return c
	}
	return &reachable{existing: c, host: p.webhookHost}
}

var _ cluster.WebhookHost = (*reachable)(nil)
