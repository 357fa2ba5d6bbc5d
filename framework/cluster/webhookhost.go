package cluster

import (
	"context"
	"time"
)

// WebhookHost is implemented by clusters whose apiservers reach this host
// at an address other than loopback (containers on a bridge network): the
// harness's fake webhook servers listen on it and their certificates carry
// it. Clusters without it reach the host at 127.0.0.1.
type WebhookHost interface {
	WebhookHost() string
}

// WebhookEndpoint is implemented by clusters whose apiservers reach the
// harness's webhook server through a relay: the server listens at listen
// (host:port on this host) and apiservers call it at advertise (host:port),
// which its certificate carries.
type WebhookEndpoint interface {
	WebhookEndpoint() (listen, advertise string)
}

// WebhookNames is implemented by clusters whose apiservers know the
// harness's webhook server by DNS names besides its address (a Service in
// front of a harness that runs in the cluster): the webhook certificates
// carry them.
type WebhookNames interface {
	WebhookNames() []string
}

// WebhookRoute is implemented by clusters whose route from the apiservers
// to the harness's webhook server is set up by the cluster itself after the
// server starts listening (a Service whose endpoint the nodes' proxies learn
// a moment later): AwaitWebhookRoute returns once calls get through, so the
// first spec's calls are not refused.
type WebhookRoute interface {
	AwaitWebhookRoute(ctx context.Context, poll time.Duration) error
}
