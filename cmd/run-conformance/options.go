package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/cluster/embedded"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kind"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kubeconfig"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/report"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// runOptions is everything `run` takes. An options file (YAML, these field
// names) sets them; flags given on the command line override the file.
type runOptions struct {
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
	Kind kindOptions `json:"kind,omitempty"`
	// ReferenceInitializers installs the reference implementation of the
	// seed's initializers for the specs that need it (initializers.go).
	ReferenceInitializers bool `json:"referenceInitializers"`
	// Parallel is how many specs run at once (parallel.go); 0: chosen for
	// this machine.
	Parallel int `json:"parallel,omitempty"`
	// Repeat is how many times each selected case runs (repeat.go);
	// RepeatOnlyMeasured repeats only the cases that record measurements.
	Repeat             int  `json:"repeat,omitempty"`
	RepeatOnlyMeasured bool `json:"repeatOnlyMeasured,omitempty"`
	// The in-cluster mode (incluster.go).
	inClusterOptions `json:",inline"`
	// NoCeilings skips checking the counts against what this machine
	// holds (ceilings.go).
	NoCeilings bool `json:"noCeilings,omitempty"`

	// Flag-only.
	optionsFile string
	boundFlags  []string
	nodeFault   string
	rerunFailed string
	// initializersFault breaks the reference initializers on purpose.
	initializersFault string
	// rerunFilter is the label filter --rerun-failed selects (validate
	// sets it); empty with rerunFailed set means nothing failed.
	rerunFilter string
	// attach makes this process a worker of a parallel run (worker.go).
	attach string
	// beforeStop, when set, sees the cluster once the specs ran, before
	// it stops (certify.go reads the cluster's fingerprint).
	beforeStop func(*harness.Env)
}

func defaultRunOptions() runOptions {
	return runOptions{Provider: "embedded", APIServers: 1, Nodes: 1, ReferenceInitializers: true, ReportDir: "_artifacts", Bounds: bounds.Defaults(), Repeat: 1}
}

// addFlags binds the flags to o, with o's current values as defaults (so
// binding does not reset values read from an options file).
func (o *runOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.optionsFile, "options", o.optionsFile, "YAML options file; flags given on the command line override it")
	fs.StringVar(&o.Provider, "provider", o.Provider, "cluster provider: embedded, kind or kubeconfig")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig of an existing cluster (provider kubeconfig)")
	fs.StringVar(&o.Context, "context", o.Context, "kubeconfig context (provider kubeconfig)")
	fs.StringVar(&o.PluginImage, "plugin-image", o.PluginImage, "run the fake webhooks behind a relay pod in the cluster, from this image of the harness (provider kubeconfig; write it with 'run-conformance image')")
	fs.StringSliceVar(&o.NodeAdmissionNodes, "node-admission-nodes", o.NodeAdmissionNodes, "nodes of the cluster whose kubelets run Kubernetes' own admission code: the node admission specs place pods there by spec.nodeName (provider kubeconfig; declares NodeAdmission)")
	fs.StringVar(&o.WebhookHost, "webhook-host", o.WebhookHost, "an address of this host the cluster's apiservers reach (provider kubeconfig; for a kind cluster its network's gateway): the fake webhooks listen there")
	fs.IntVar(&o.APIServers, "apiservers", o.APIServers, "kube-apiserver replicas sharing one etcd (provider embedded)")
	fs.StringArrayVar(&o.APIServerArgs, "apiserver-arg", o.APIServerArgs, "extra kube-apiserver flag, repeatable (provider embedded), e.g. --apiserver-arg=--disable-admission-plugins=MutatingAdmissionWebhook")
	fs.StringArrayVar(&o.EtcdDelays, "etcd-delay", o.EtcdDelays, "REPLICA=DURATION: once the cluster is ready, that apiserver replica sees etcd late by DURATION (provider embedded; a deliberately lagging control plane)")
	fs.StringSliceVar(&o.Suites, "suite", o.Suites, "suites to run, repeatable or comma-separated (default all)")
	fs.StringSliceVar(&o.Profiles, "profile", o.Profiles, "profiles to run: core, extended, reference (default all)")
	fs.StringSliceVar(&o.SupportedFeatures, "supported-features", o.SupportedFeatures, "features the implementation claims beyond what the cluster declares")
	fs.StringVar(&o.LabelFilter, "label-filter", o.LabelFilter, "Ginkgo label filter, e.g. 'feature:MutatingWebhook && !profile:extended'")
	fs.StringArrayVar(&o.Focus, "focus", o.Focus, "run only specs whose text matches this regular expression, repeatable")
	fs.StringArrayVar(&o.Skip, "skip", o.Skip, "skip specs whose text matches this regular expression, repeatable")
	fs.StringVar(&o.ReportDir, "report-dir", o.ReportDir, "where results.json, report.yaml, junit.xml, run.log, report.html and components.log are written")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "hollow kubelets (real kubelet admission code, fake runtime) to start, each a child process (provider embedded; none unless the selection holds a nodeadmit spec, which needs at least 1)")
	fs.StringVar(&o.nodeFault, "node-fault", o.nodeFault, "break the nodes on purpose, for the harness's own tests: no-predicates, reasons-differ, plugins-fail-open or no-plugin-host")
	_ = fs.MarkHidden("node-fault")
	fs.BoolVar(&o.ReferenceInitializers, "reference-initializers", o.ReferenceInitializers, "install the project's reference implementation of the seed's initializers (reference/initializers) when the selection includes specs that need it; its webhook runs in this process, so the cluster must reach this host")
	fs.StringVar(&o.initializersFault, "reference-initializers-fault", o.initializersFault, "break the reference initializers on purpose, for the harness's own tests: reverse-order, no-timeouts or no-read-repair")
	_ = fs.MarkHidden("reference-initializers-fault")
	fs.StringVar(&o.History, "history", o.History, "keep a copy of this run's results in DIR/<start time>/ and show trends over the kept runs in report.html")
	fs.StringVar(&o.rerunFailed, "rerun-failed", o.rerunFailed, "run only the specs that failed in this results.json (or report dir, or history dir: its newest run)")
	addImplementationFlags(fs, &o.Implementation)
	o.Kind.addFlags(fs)
	o.addParallelFlags(fs)
	o.addRepeatFlags(fs)
	o.addInClusterFlags(fs)
	fs.BoolVar(&o.NoCeilings, noCeilingsFlag, o.NoCeilings, noCeilingsHelp)
	fs.StringArrayVar(&o.boundFlags, "bound", o.boundFlags, "override one bound, name=duration, repeatable; names: "+strings.Join(bounds.Keys(), ", "))
}

// load applies the options file (if any) under the flags that were given:
// it decodes the file over the defaults, then sets again every flag the user
// typed.
func (o *runOptions) load(fs *pflag.FlagSet) error {
	if o.optionsFile != "" {
		data, err := os.ReadFile(o.optionsFile)
		if err != nil {
			return usageError("cannot read options file: %v", err)
		}
		fromFile := defaultRunOptions()
		if err := yaml.UnmarshalStrict(data, &fromFile); err != nil {
			return usageError("options file %s: %v", o.optionsFile, oneLine(err.Error()))
		}
		// The flags' values live in o's fields, which the file is about to
		// replace: capture what the user typed first.
		type typed struct {
			name  string
			slice []string
			value string
		}
		var given []typed
		fs.Visit(func(f *pflag.Flag) {
			t := typed{name: f.Name, value: f.Value.String()}
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				t.slice = append([]string(nil), sv.GetSlice()...)
			}
			given = append(given, t)
		})
		*o = fromFile
		fresh := pflag.NewFlagSet("reapply", pflag.ContinueOnError)
		o.addFlags(fresh)
		for _, t := range given {
			var err error
			if sv, ok := fresh.Lookup(t.name).Value.(pflag.SliceValue); ok {
				err = sv.Replace(t.slice)
			} else {
				err = fresh.Set(t.name, t.value)
			}
			if err != nil {
				return usageError("--%s: %v", t.name, err)
			}
		}
	}
	for _, b := range o.boundFlags {
		if err := o.Bounds.Set(b); err != nil {
			return usageError("%v", err)
		}
	}
	return o.validate()
}

// validate rejects every bad input before anything is started.
func (o *runOptions) validate() error {
	if err := o.Bounds.Validate(); err != nil {
		return usageError("%v", err)
	}
	for _, s := range o.Suites {
		if _, err := spec.ParseSuite(s); err != nil {
			return usageError("%v", err)
		}
	}
	for _, p := range o.Profiles {
		if _, err := spec.ParseProfile(p); err != nil {
			return usageError("%v", err)
		}
	}
	if err := checkLabelFilter("--label-filter", o.LabelFilter); err != nil {
		return err
	}
	if err := checkRegexps("--focus", o.Focus); err != nil {
		return err
	}
	if err := checkRegexps("--skip", o.Skip); err != nil {
		return err
	}
	if _, err := features.Parse(o.SupportedFeatures); err != nil {
		return usageError("--supported-features: %v", err)
	}
	if o.APIServers < 1 {
		return usageError("--apiservers must be at least 1, got %d", o.APIServers)
	}
	if err := o.validateProviderFlags(); err != nil {
		return err
	}
	if err := o.validateInCluster(); err != nil {
		return err
	}
	switch o.Provider {
	case embedded.Name:
		if o.Kubeconfig != "" || o.Context != "" {
			return usageError("--kubeconfig and --context go with --provider kubeconfig")
		}
		if _, err := o.etcdDelays(); err != nil {
			return err
		}
		if err := embedded.CheckAPIServerArgs(o.APIServerArgs); err != nil {
			return usageError("--apiserver-arg: %v", err)
		}
	case kubeconfig.Name:
		if o.APIServers != 1 || len(o.APIServerArgs) > 0 || len(o.EtcdDelays) > 0 {
			return usageError("--apiservers, --apiserver-arg and --etcd-delay go with --provider embedded")
		}
		// Reading the kubeconfig contacts nothing; reaching the cluster is
		// checked when the provider starts.
		if _, err := kubeconfig.New(kubeconfig.WithPath(o.Kubeconfig), kubeconfig.WithContext(o.Context)).LoadConfig(); err != nil {
			return usageError("%v", err)
		}
	case kind.Name:
		if err := o.validateKind(); err != nil {
			return err
		}
	default:
		return usageError("unknown provider %q: use embedded, kind or kubeconfig", o.Provider)
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
	if err := checkOutputDir("--report-dir", o.ReportDir); err != nil {
		return err
	}
	if o.History != "" {
		if err := checkHistoryDir("--history", o.History); err != nil {
			return err
		}
	}
	if _, err := implementationOrNil(o.Implementation); err != nil {
		return err
	}
	if o.rerunFailed != "" {
		filter, err := rerunFilter(o.rerunFailed)
		if err != nil {
			return err
		}
		o.rerunFilter = filter
	}
	// Labels select as Ginkgo will (focus and skip, which match texts only
	// the run knows, are left to it).
	if !o.mayRun(func(spec.Spec) bool { return true }) {
		return usageError("no spec matches the selection (--suite, --profile, --label-filter, --rerun-failed): see 'run-conformance list' for the specs and their labels")
	}
	return nil
}

func (o *runOptions) profiles() []spec.Profile {
	out := make([]spec.Profile, len(o.Profiles))
	for i, p := range o.Profiles {
		out[i] = spec.Profile(p)
	}
	return out
}

// etcdDelays parses --etcd-delay values into embedded options.
func (o *runOptions) etcdDelays() ([]embedded.Option, error) {
	var opts []embedded.Option
	for _, v := range o.EtcdDelays {
		replica, delay, ok := strings.Cut(v, "=")
		n, err := strconv.Atoi(replica)
		d, derr := time.ParseDuration(delay)
		if !ok || err != nil || derr != nil || d <= 0 {
			return nil, usageError("--etcd-delay takes REPLICA=DURATION (for example 1=1500ms), got %q", v)
		}
		if n < 0 || n >= o.APIServers {
			return nil, usageError("--etcd-delay: replica %d does not exist with --apiservers %d", n, o.APIServers)
		}
		opts = append(opts, embedded.WithEtcdDelay(n, d))
	}
	return opts, nil
}
