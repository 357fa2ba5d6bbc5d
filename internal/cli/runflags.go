package cli

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// runOptions are a run's configuration (internal/runconfig) as `run` and
// `certify` bind it to flags, with the flags that only say how to read it.
type runOptions struct {
	runconfig.Config
	optionsFile string
	boundFlags  []string
}

// defaultRunOptions are run's flags when none is given.
func defaultRunOptions() runOptions {
	return runOptions{Config: runconfig.Default()}
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
	fs.StringVar(&o.NodeFault, "node-fault", o.NodeFault, "break the nodes on purpose, for the harness's own tests: no-predicates, reasons-differ, plugins-fail-open, plugins-reject-late, plugins-ignore-rejections or no-plugin-host (on kind: the plugin host's faults only)")
	_ = fs.MarkHidden("node-fault")
	fs.BoolVar(&o.ReferenceInitializers, "reference-initializers", o.ReferenceInitializers, "install the project's reference implementation of the seed's initializers (reference/initializers) when the selection includes specs that need it; its webhook runs in this process, so the cluster must reach this host")
	fs.StringVar(&o.InitializersFault, "reference-initializers-fault", o.InitializersFault, "break the reference initializers on purpose, for the harness's own tests: "+harness.InitializersFaultChoices())
	_ = fs.MarkHidden("reference-initializers-fault")
	fs.StringVar(&o.History, "history", o.History, "keep a copy of this run's results in DIR/<start time>/ and show trends over the kept runs in report.html")
	fs.StringVar(&o.RerunFailed, "rerun-failed", o.RerunFailed, "run only the specs that failed in this results.json (or report dir, or history dir: its newest run)")
	addImplementationFlags(fs, &o.Implementation)
	addKindFlags(fs, &o.Kind)
	o.addParallelFlags(fs)
	o.addRepeatFlags(fs)
	o.addInClusterFlags(fs)
	fs.BoolVar(&o.NoCeilings, runconfig.NoCeilingsFlag, o.NoCeilings, noCeilingsHelp)
	fs.BoolVar(&o.NoPropagationPlane, runconfig.NoPropagationPlaneFlag, o.NoPropagationPlane,
		"run the specs that measure how fast configuration changes are enforced on the run's one control plane, holding the other specs' writes of their kind off, instead of on propagation planes, further control planes of the same build beside it (provider embedded, parallel runs; see docs/parallel-runs.md)")
	fs.StringArrayVar(&o.boundFlags, "bound", o.boundFlags, "override one bound, name=duration, repeatable; names: "+strings.Join(bounds.Keys(), ", "))
}

// load applies the options file (if any) under the flags that were given:
// it decodes the file over the defaults, then sets again every flag the user
// typed. A child's file (a worker's, the in-cluster pod's) comes alone from
// its parent (runconfig.CheckFromParent).
func (o *runOptions) load(fs *pflag.FlagSet) error {
	otherFlags := false
	fs.Visit(func(f *pflag.Flag) { otherFlags = otherFlags || f.Name != "options" })
	if o.optionsFile != "" {
		fromFile, err := runconfig.ReadFile(o.optionsFile)
		if err != nil {
			return err
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
		*o = runOptions{Config: fromFile}
		fresh := pflag.NewFlagSet("reapply", pflag.ContinueOnError)
		o.addFlags(fresh)
		for _, t := range given {
			if fresh.Lookup(t.name) == nil {
				continue // a command's own flag (run --plan), not an option
			}
			var err error
			if sv, ok := fresh.Lookup(t.name).Value.(pflag.SliceValue); ok {
				err = sv.Replace(t.slice)
			} else {
				err = fresh.Set(t.name, t.value)
			}
			if err != nil {
				return exitcode.Usagef("--%s: %v", t.name, err)
			}
		}
	}
	for _, b := range o.boundFlags {
		if err := o.Bounds.Set(b); err != nil {
			return exitcode.Usagef("%v", err)
		}
	}
	if err := o.Validate(); err != nil {
		return err
	}
	return o.CheckFromParent(otherFlags)
}

// addParallelFlags binds --parallel.
func (o *runOptions) addParallelFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.Parallel, "parallel", o.Parallel, fmt.Sprintf("how many specs run at once against the one cluster, each in a worker process; "+
		"1 runs them one after another in this process; 0 (default) picks %d for this machine (%d CPUs: %s). "+
		"Specs whose isolation says so (see 'list') run beside no spec sharing their state, or alone", runconfig.DefaultWorkers(), runtime.NumCPU(), runconfig.WorkersRule))
}

// repeatCount is --repeat: a whole number, whose error says what to give.
type repeatCount int

func (r *repeatCount) String() string { return strconv.Itoa(int(*r)) }

func (r *repeatCount) Type() string { return "int" }

func (r *repeatCount) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("not a whole number: give how many times each selected case runs, at least 1")
	}
	*r = repeatCount(n)
	return nil
}

// addRepeatFlags binds --repeat and --repeat-only-measured.
func (o *runOptions) addRepeatFlags(fs *pflag.FlagSet) {
	fs.Var((*repeatCount)(&o.Repeat), "repeat", fmt.Sprintf("run each selected case N times against the same cluster and record every outcome: "+
		"passed every time is passed, failed every time failed, both flaky (never a pass), with its pass rate; at most %d without --%s", runconfig.MaxRepeat, runconfig.NoCeilingsFlag))
	fs.BoolVar(&o.RepeatOnlyMeasured, "repeat-only-measured", o.RepeatOnlyMeasured, "with --repeat, repeat only the cases that recorded a measurement in their first run (the others run once)")
}

// addInClusterFlags binds the in-cluster client's flags (its pod's role is
// in the options file the client writes: internal/engine/incluster).
func (o *runOptions) addInClusterFlags(fs *pflag.FlagSet) {
	ic := &o.InClusterOptions
	fs.BoolVar(&ic.InCluster, "in-cluster", ic.InCluster, "run the harness in the cluster (provider kubeconfig or kind): a Job of the harness image serving the fake webhooks behind a Service; "+
		"its output streams here, its reports are copied to --report-dir, and everything it created is deleted at the end")
	fs.StringVar(&ic.Image, "image", ic.Image, "the harness image the cluster pulls for --in-cluster (write it with 'run-conformance image'); "+
		"with --provider kind, default "+defaultImage()+", loaded into the nodes")
	fs.StringVar(&ic.ServiceAccount, "service-account", ic.ServiceAccount, "with --in-cluster: run the pod as this existing service account, NAMESPACE/NAME, in its namespace; "+
		"no service account, role or binding is created, and a preflight checks the account's rights first (specs needing a right it lacks are not supported; "+
		"'run --plan --in-cluster' prints the rights as a ClusterRole to bind)")
	fs.StringVar(&ic.ImageArchive, "image-archive", ic.ImageArchive, "with --in-cluster --provider kind: load this image archive into the nodes (default: one of this binary, written for the run); it must hold --image")
}

// addKindFlags binds the kind provider's flags to k.
func addKindFlags(fs *pflag.FlagSet, k *runconfig.KindOptions) {
	if k.Topology == "" {
		k.Topology = string(kind.Single)
	}
	fs.StringVar(&k.Topology, "kind-topology", k.Topology, "kind cluster shape (provider kind): single (1 node), multi (1 control plane + 2 workers), ha (3 control planes + 1 worker)")
	fs.StringVar(&k.Image, "kind-image", k.Image, "kind node image (provider kind; default: kind's default, which needs a registry; offline: build one with `make kind-image`)")
	fs.StringVar(&k.Cluster, "kind-cluster", k.Cluster, "kind cluster name (provider kind): an existing cluster of that name is reused and left running; default: a new cluster per run")
	fs.BoolVar(&k.Keep, "keep-cluster", k.Keep, "leave the kind cluster this run created running (provider kind)")
}

// noCeilingsHelp is --no-ceilings' help, the same for run and certify.
const noCeilingsHelp = "do not check --apiservers, --nodes, --parallel and --kind-topology against what this machine holds " +
	"(its free memory and CPUs, at measured costs per part; see docs/running.md, Ceilings), nor --repeat against its ceiling of 100"
