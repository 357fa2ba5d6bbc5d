package fakewebhook

import (
	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Option configures New. The interface is sealed so that only this package
// defines options.
type Option interface {
	apply(*config)
}

type config struct {
	listenAddress string
	advertised    string
	hosts         []string
	logger        logr.Logger
	pathPrefix    string
	fault         string
	fieldPaths    FieldPaths
}

func defaultConfig() config {
	return config{listenAddress: "127.0.0.1:0", logger: logr.Discard()}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithHosts adds names or IPs to the serving certificate, e.g. the address
// under which a cluster in containers reaches the host.
func WithHosts(hosts ...string) Option {
	return optionFunc(func(c *config) { c.hosts = append(c.hosts, hosts...) })
}

// WithListenAddress replaces the default "127.0.0.1:0".
func WithListenAddress(addr string) Option {
	return optionFunc(func(c *config) { c.listenAddress = addr })
}

// WithLogger receives a line per call at V(1) and server errors (such as
// failed TLS handshakes) at V(1) too, since tests provoke them on purpose.
func WithLogger(l logr.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// WithAdvertisedAddress makes URL and Address name host:port instead of the
// listen address, for servers that apiservers reach through a relay; the
// certificate carries its host.
func WithAdvertisedAddress(hostport string) Option {
	return optionFunc(func(c *config) { c.advertised = hostport })
}

// WithPathPrefix makes URL put prefix (e.g. "/w/1a2b") in front of every
// path, for a server reached through a router that takes the prefix off
// before passing the call on (run --parallel behind a relay).
func WithPathPrefix(prefix string) Option {
	return optionFunc(func(c *config) { c.pathPrefix = prefix })
}

// WithInjectedErrors makes every hook that should allow or patch answer
// HTTP 500 instead, with "injected fault: " and fault as the call's error;
// an empty fault injects nothing. The harness's own tests inject an
// intermittent fault this way (internal/testhook), to see how a run
// reports a misbehaving implementation. Denials, which the harness's
// readiness markers are, stay as they are, so set-up still sees its
// webhooks ready.
func WithInjectedErrors(fault string) Option {
	return optionFunc(func(c *config) { c.fault = fault })
}

// FieldPaths returns the field paths doc, a JSON object of the type root
// ("AdmissionRequest", "AdmissionResponse"), sets.
type FieldPaths func(root string, doc []byte) ([]results.FieldPath, error)

// WithFieldPaths makes every call record the field paths its request and
// its answer set (Call.RequestFields, Call.AnswerFields), as paths names
// them: the harness hands in the engine's inventory of the pinned
// Kubernetes (internal/contract/fields) for the run's field coverage.
// Without it, a call records none.
func WithFieldPaths(paths FieldPaths) Option {
	return optionFunc(func(c *config) { c.fieldPaths = paths })
}
