package harness

import (
	"fmt"
	"path/filepath"

	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/framework/quiet"
)

// AttachConfig is what a worker process of a parallel run (run --parallel)
// needs to run specs against a cluster another process booted.
type AttachConfig struct {
	Cluster           cluster.Cluster
	RunID             string
	KubernetesVersion string
	Bounds            bounds.Bounds
	// Supported and Installed are the run's, as the booting process
	// decided them.
	Supported features.Set
	Installed features.Set
	// CA signs the worker's webhook certificate; nil makes a fresh one.
	CA *pki.CA
	// Webhook are the options of the worker's own fake webhook server
	// (where it listens, how apiservers reach it).
	Webhook []fakewebhook.Option
	// SharedDir is where the run's workers share their quiet windows
	// (package quiet); empty: this worker is the run's only one.
	SharedDir string
	// Engine is the run's internal parts (required; Hooks unused).
	Engine
	Logger logr.Logger
}

// Attach makes the environment of a worker: the run's cluster, ID, bounds
// and features, and a fake webhook server of its own, so the journal holds
// the calls of the worker's cases only. Its Close stops that server and
// nothing else: the cluster, the reference initializers and the sweep of
// the run's objects belong to the process that booted them.
func Attach(cfg AttachConfig) (*Env, error) {
	if cfg.Logger.GetSink() == nil {
		cfg.Logger = logr.Discard()
	}
	if err := cfg.Bounds.Validate(); err != nil {
		return nil, err
	}
	if cfg.Cluster == nil || cfg.RunID == "" {
		return nil, fmt.Errorf("attach: a cluster and the run's ID are required")
	}
	if err := cfg.Engine.validate(); err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	env := &Env{Cluster: cfg.Cluster, Bounds: cfg.Bounds, Logger: cfg.Logger, RunID: cfg.RunID,
		KubernetesVersion: cfg.KubernetesVersion, Supported: cfg.Supported, Installed: cfg.Installed, attached: true,
		absences: cfg.Absences, rights: cfg.Rights, fields: cfg.Fields}
	env.quiet = quiet.Local()
	if cfg.SharedDir != "" {
		var err error
		if env.quiet, err = quiet.Open(filepath.Join(cfg.SharedDir, "quiet"), cfg.Bounds.PollInterval.Duration); err != nil {
			return nil, err
		}
	}
	ca := cfg.CA
	if ca == nil {
		var err error
		if ca, err = pki.NewCA("admission-conformance-webhooks-" + env.RunID); err != nil {
			return nil, err
		}
	}
	var err error
	if env.Webhooks, err = fakewebhook.New(ca, append([]fakewebhook.Option{fakewebhook.WithLogger(cfg.Logger), fakewebhook.WithFieldPaths(cfg.Fields.Paths)}, cfg.Webhook...)...); err != nil {
		return nil, fmt.Errorf("start fake webhook server: %w", err)
	}
	return env, nil
}
