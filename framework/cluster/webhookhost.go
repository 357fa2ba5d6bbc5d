package cluster

// WebhookHost is implemented by clusters whose apiservers reach this host
// at an address other than loopback (containers on a bridge network): the
// harness's fake webhook servers listen on it and their certificates carry
// it. Clusters without it reach the host at 127.0.0.1.
type WebhookHost interface {
	WebhookHost() string
}
