package embedded

import (
	"io"
	"time"

	"github.com/go-logr/logr"
)

// Option configures the embedded provider. Options are sealed: only this
// package can implement them.
type Option interface{ apply(*settings) }

type optionFunc func(*settings)

func (f optionFunc) apply(o *settings) { f(o) }

type settings struct {
	apiservers    int
	apiserverArgs []string
	logger        logr.Logger
	componentLog  io.Writer
	startTimeout  time.Duration
	poll          time.Duration
	baseDir       string
	noScheduler   bool
	noControllers bool
	nodes         nodeSettings
	etcdDelays    map[int]time.Duration
}

func defaultSettings() settings {
	return settings{
		apiservers:   1,
		logger:       logr.Discard(),
		componentLog: io.Discard,
		startTimeout: 3 * time.Minute,
		poll:         20 * time.Millisecond,
	}
}

// WithAPIServers sets how many kube-apiserver replicas share the etcd (an HA
// control plane when more than one).
func WithAPIServers(n int) Option { return optionFunc(func(o *settings) { o.apiservers = n }) }

// WithAPIServerArgs adds kube-apiserver flags after the harness's own, so they
// win. The harness's own tests use this to start broken control planes.
func WithAPIServerArgs(args ...string) Option {
	return optionFunc(func(o *settings) { o.apiserverArgs = append(o.apiserverArgs, args...) })
}

// WithLogger sets where progress of the start-up goes.
func WithLogger(l logr.Logger) Option { return optionFunc(func(o *settings) { o.logger = l }) }

// WithComponentLog sets where the components' own output (apiserver,
// scheduler, controller manager, etcd) goes.
func WithComponentLog(w io.Writer) Option {
	return optionFunc(func(o *settings) { o.componentLog = w })
}

// WithStartTimeout bounds how long each component may take to become ready.
func WithStartTimeout(d time.Duration) Option {
	return optionFunc(func(o *settings) { o.startTimeout = d })
}

// WithPollInterval sets the gap between readiness probes.
func WithPollInterval(d time.Duration) Option { return optionFunc(func(o *settings) { o.poll = d }) }

// WithBaseDir sets the folder the run's temp dir is created in (default: the
// system temp dir).
func WithBaseDir(dir string) Option { return optionFunc(func(o *settings) { o.baseDir = dir }) }

// WithoutScheduler skips the kube-scheduler.
func WithoutScheduler() Option { return optionFunc(func(o *settings) { o.noScheduler = true }) }

// WithoutControllerManager skips the kube-controller-manager. Namespaces then
// never finish deleting and default ServiceAccounts are not created.
func WithoutControllerManager() Option {
	return optionFunc(func(o *settings) { o.noControllers = true })
}

// WithEtcdDelay makes one apiserver replica see etcd late: once the cluster
// is ready, everything etcd sends that replica is held for delay. It builds a
// deliberately lagging control plane for the harness's own tests.
func WithEtcdDelay(replica int, delay time.Duration) Option {
	return optionFunc(func(o *settings) {
		if o.etcdDelays == nil {
			o.etcdDelays = map[int]time.Duration{}
		}
		o.etcdDelays[replica] = delay
	})
}
