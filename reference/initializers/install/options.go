package install

import (
	"context"
	"crypto/tls"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Options configure an installation. Zero fields get the defaults below.
type Options struct {
	// NamespaceSelector selects the namespaces whose pods are held.
	// Default: every namespace but kube-system.
	NamespaceSelector *metav1.LabelSelector
	// ExemptSelector is a label selector of the mutating webhook
	// configurations that get the update mutator exemption ("" is all).
	ExemptSelector string
	// Labels go on every object the installation creates.
	Labels map[string]string
	// ListenAddress is where the webhook listens (default 127.0.0.1:0).
	ListenAddress string
	// AdvertiseHost is the host the apiservers call the webhook at
	// (default: the listen host). It goes into the serving certificate,
	// with Hosts.
	AdvertiseHost string
	Hosts         []string

	// ScopeLabel, when set, scopes each configuration to the namespace its
	// label ScopeLabel names (webhook.Settings.ScopeLabel); empty: every
	// configuration applies everywhere the webhook acts, as in the seed.
	ScopeLabel string

	// PollInterval is the gap between two configuration reads (seed: 1 s).
	PollInterval time.Duration
	// BlockAfter is how long after the latest successful read creations are
	// denied (seed: 5 s).
	BlockAfter time.Duration
	// GlobalTimeout is the pod age after which read repair acts (seed's
	// example: 10 minutes); RepairInterval the gap between two sweeps.
	GlobalTimeout  time.Duration
	RepairInterval time.Duration

	// ReadyTimeout bounds each step of the installation; Poll is the gap
	// between two readiness probes.
	ReadyTimeout time.Duration
	Poll         time.Duration

	// Faults break the implementation on purpose, for the harness's own
	// tests: configurations merged in reverse name order; no timeouts; no
	// read repair.
	ReverseOrder bool
	NoTimeouts   bool
	NoReadRepair bool

	Logger logr.Logger

	// Serving makes the webhook's serving certificate for hosts (every name
	// and address the apiservers may call it at) and returns it with the CA
	// bundle (PEM) the webhook configuration carries. Required: the
	// harness and cmd/reference-initializers make them with framework/pki.
	Serving func(hosts []string) (cert tls.Certificate, caBundle []byte, err error)
	// AfterRBAC, if set, runs once the namespace and the RBAC exist, before
	// the CRD: the harness's own tests pause an installation there.
	AfterRBAC func(context.Context)
}

func (o Options) withDefaults() Options {
	if o.NamespaceSelector == nil {
		o.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{metav1.NamespaceSystem},
		}}}
	}
	if o.ListenAddress == "" {
		o.ListenAddress = "127.0.0.1:0"
	}
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	set(&o.PollInterval, time.Second)
	set(&o.BlockAfter, 5*time.Second)
	set(&o.GlobalTimeout, 10*time.Minute)
	set(&o.RepairInterval, 30*time.Second)
	set(&o.ReadyTimeout, 30*time.Second)
	set(&o.Poll, 20*time.Millisecond)
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	return o
}
