// Package runconfig is the one configuration of a run (what `run` and
// `certify` take, from flags or an options file, and the one input of the
// runs a run starts: a matrix's targets, a parallel run's workers, an
// in-cluster run's pod; child.go) and its validation: every bad input is
// refused, one line and exit 2, before anything starts.
package runconfig

import (
	"os"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	"github.com/admission-conformance/admission-conformance/internal/report"
)

// Config is everything `run` takes. An options file (YAML, these field
// names) sets it; flags given on the command line override the file.
type Config struct {
	Provider    string `json:"provider"`
	Kubeconfig  string `json:"kubeconfig,omitempty"`
	Context     string `json:"context,omitempty"`
	WebhookHost string `json:"webhookHost,omitempty"`
	PluginImage string `json:"pluginImage,omitempty"`
	// NodeAdmissionNodes are nodes of a kubeconfig cluster with real
	// kubelets, where the node admission specs may place pods.
	NodeAdmissionNodes []string      `json:"nodeAdmissionNodes,omitempty"`
	APIServers         int           `json:"apiservers"`
	APIServerArgs      []string      `json:"apiserverArgs,omitempty"`
	EtcdDelays         []string      `json:"etcdDelays,omitempty"`
	Suites             []string      `json:"suites,omitempty"`
	Profiles           []string      `json:"profiles,omitempty"`
	SupportedFeatures  []string      `json:"supportedFeatures,omitempty"`
	LabelFilter        string        `json:"labelFilter,omitempty"`
	Focus              []string      `json:"focus,omitempty"`
	Skip               []string      `json:"skip,omitempty"`
	ReportDir          string        `json:"reportDir"`
	Nodes              int           `json:"nodes"`
	Bounds             bounds.Bounds `json:"bounds"`
	// Implementation is what is tested, for report.yaml.
	Implementation report.Implementation `json:"implementation"`
	// History, when set, keeps a copy of every run's results in
	// History/<start time>/ and lets report.html show trends.
	History string `json:"history,omitempty"`
	// Kind is the kind provider's settings (kind.go).
	Kind KindOptions `json:"kind,omitempty"`
	// ReferenceInitializers installs the reference implementation of the
	// seed's initializers for the specs that need it (initializers.go).
	ReferenceInitializers bool `json:"referenceInitializers"`
	// Parallel is how many specs run at once (workers.go; the engine's parallel.go); 0: chosen for
	// this machine.
	Parallel int `json:"parallel,omitempty"`
	// Repeat is how many times each selected case runs (repeat.go);
	// RepeatOnlyMeasured repeats only the cases that record measurements.
	Repeat             int  `json:"repeat,omitempty"`
	RepeatOnlyMeasured bool `json:"repeatOnlyMeasured,omitempty"`
	// The in-cluster mode (incluster.go).
	InClusterOptions `json:",inline"`
	// NoCeilings skips checking the counts against what this machine
	// holds (ceilings.go).
	NoCeilings bool `json:"noCeilings,omitempty"`
	// NoPropagationPlane runs the propagation specs on the run's one
	// cluster (plane.go).
	NoPropagationPlane bool `json:"noPropagationPlane,omitempty"`
	// Child, only in the options file a run writes for a run it starts
	// (a parallel run's worker, an in-cluster run's pod), is that run's
	// role (child.go).
	Child *Child `json:"child,omitempty"`

	// Flag-only (never in an options file).
	NodeFault   string `json:"-"`
	RerunFailed string `json:"-"`
	// InitializersFault breaks the reference initializers on purpose.
	InitializersFault string `json:"-"`
	// RerunFilter is the label filter --rerun-failed selects (Validate
	// sets it); empty with RerunFailed set means nothing failed.
	RerunFilter string `json:"-"`
	// BeforeStop, when set, sees the cluster once the specs ran, before
	// it stops (certify reads the cluster's fingerprint).
	BeforeStop func(*harness.Env) `json:"-"`
	// Version is the harness's version, for the reports; the command
	// sets it.
	Version string `json:"-"`
}

// Default is a run's configuration when nothing is given.
func Default() Config {
	return Config{Provider: "embedded", APIServers: 1, Nodes: 2, ReferenceInitializers: true, ReportDir: "_artifacts", Bounds: bounds.Defaults(), Repeat: 1}
}

// ReadFile reads an options file (YAML, Config's field names) over the
// defaults; a field it does not know is an error.
func ReadFile(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, exitcode.Usagef("cannot read options file: %v", err)
	}
	c, err := Decode(data)
	if err != nil {
		return Config{}, exitcode.Usagef("options file %s: %v", path, exitcode.OneLine(err.Error()))
	}
	return c, nil
}

// Decode reads options (YAML or JSON) over the defaults; a field it does
// not know is an error.
func Decode(data []byte) (Config, error) {
	c := Default()
	err := yaml.UnmarshalStrict(data, &c)
	return c, err
}

// Validate rejects every bad input before anything is started.
func (o *Config) Validate() error {
	if err := o.Bounds.Validate(); err != nil {
		return exitcode.Usagef("%v", err)
	}
	for _, s := range o.Suites {
		if _, err := spec.ParseSuite(s); err != nil {
			return exitcode.Usagef("%v", err)
		}
	}
	for _, p := range o.Profiles {
		if _, err := spec.ParseProfile(p); err != nil {
			return exitcode.Usagef("%v", err)
		}
	}
	if err := check.LabelFilter("--label-filter", o.LabelFilter); err != nil {
		return err
	}
	if err := check.Regexps("--focus", o.Focus); err != nil {
		return err
	}
	if err := check.Regexps("--skip", o.Skip); err != nil {
		return err
	}
	if _, err := features.Parse(o.SupportedFeatures); err != nil {
		return exitcode.Usagef("--supported-features: %v", err)
	}
	if o.APIServers < 1 {
		return exitcode.Usagef("--apiservers must be at least 1, got %d", o.APIServers)
	}
	if err := o.validateProviderFlags(); err != nil {
		return err
	}
	if err := o.validateInCluster(); err != nil {
		return err
	}
	if err := o.validateChild(); err != nil { // child.go
		return err
	}
	switch o.Provider {
	case embedded.Name:
		if o.Kubeconfig != "" || o.Context != "" {
			return exitcode.Usagef("--kubeconfig and --context go with --provider kubeconfig")
		}
		if _, err := o.EtcdDelayOptions(); err != nil {
			return err
		}
		if err := embedded.CheckAPIServerArgs(o.APIServerArgs); err != nil {
			return exitcode.Usagef("--apiserver-arg: %v", err)
		}
	case kubeconfig.Name:
		if o.APIServers != 1 || len(o.APIServerArgs) > 0 || len(o.EtcdDelays) > 0 {
			return exitcode.Usagef("--apiservers, --apiserver-arg and --etcd-delay go with --provider embedded")
		}
		// Reading the kubeconfig contacts nothing; reaching the cluster is
		// checked when the provider starts.
		if _, err := kubeconfig.New(kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context)).LoadConfig(); err != nil {
			return exitcode.Usagef("%v", err)
		}
	case kind.Name:
		if err := o.validateKind(); err != nil {
			return err
		}
	default:
		return exitcode.Usagef("unknown provider %q: use embedded, kind or kubeconfig", o.Provider)
	}
	if err := o.validateParallel(); err != nil {
		return err
	}
	if err := o.validateRepeat(); err != nil {
		return err
	}
	if err := o.validateNodes(); err != nil {
		return err
	}
	if err := o.checkCeilings(); err != nil { // ceilings.go
		return err
	}
	if err := o.validateReferenceInitializers(); err != nil {
		return err
	}
	if err := check.OutputDir("--report-dir", o.ReportDir); err != nil {
		return err
	}
	if o.History != "" {
		if err := check.HistoryDir("--history", o.History); err != nil {
			return err
		}
	}
	if _, err := ImplementationOrNil(o.Implementation); err != nil {
		return err
	}
	if o.RerunFailed != "" {
		filter, err := FailedFilter(o.RerunFailed)
		if err != nil {
			return err
		}
		o.RerunFilter = filter
	}
	// Labels select as Ginkgo will (focus and skip, which match texts only
	// the run knows, are left to it).
	if !o.mayRun(func(spec.Spec) bool { return true }) {
		return exitcode.Usagef("no spec matches the selection (--suite, --profile, --label-filter, --rerun-failed): see 'run-conformance list' for the specs and their labels")
	}
	return nil
}

// SelectedProfiles are the profiles given, typed.
func (o *Config) SelectedProfiles() []spec.Profile {
	out := make([]spec.Profile, len(o.Profiles))
	for i, p := range o.Profiles {
		out[i] = spec.Profile(p)
	}
	return out
}

// EtcdDelayOptions parses --etcd-delay values into embedded options.
func (o *Config) EtcdDelayOptions() ([]embedded.Option, error) {
	var opts []embedded.Option
	for _, v := range o.EtcdDelays {
		replica, delay, ok := strings.Cut(v, "=")
		n, err := strconv.Atoi(replica)
		d, derr := time.ParseDuration(delay)
		if !ok || err != nil || derr != nil || d <= 0 {
			return nil, exitcode.Usagef("--etcd-delay takes REPLICA=DURATION (for example 1=1500ms), got %q", v)
		}
		if n < 0 || n >= o.APIServers {
			return nil, exitcode.Usagef("--etcd-delay: replica %d does not exist with --apiservers %d", n, o.APIServers)
		}
		opts = append(opts, embedded.WithEtcdDelay(n, d))
	}
	return opts, nil
}
