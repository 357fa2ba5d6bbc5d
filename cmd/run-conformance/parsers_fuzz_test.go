package main

// Fuzz targets for every input run-conformance parses from a user or a
// file (issue 23 item 4): the options file, matrix.yaml and --target, the
// label filter, --focus and --skip, --bound, --etcd-delay, and results.json
// as report, compare, --rerun-failed and an in-cluster run's --history read
// it. Each calls the path the CLI takes (flags parsed into runOptions, then
// load and validate; or the command itself) and never one that starts a
// cluster: load and validate only read files, and the fuzzed commands
// (report, compare) need none. `make fuzz` runs each for FUZZTIME; `go test`
// replays the seeds and testdata/fuzz.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/report/reporttest"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// fuzzEnv keeps the kubeconfig loader off this machine's own kubeconfig:
// a fuzzed options file with provider kubeconfig and no path reads
// $KUBECONFIG, which then names a file that does not exist.
func fuzzEnv(f *testing.F) {
	home := f.TempDir()
	f.Setenv("HOME", home)
	f.Setenv("KUBECONFIG", filepath.Join(home, "no-kubeconfig"))
}

// unsafePath reports whether a fuzzed file names a path whose reading
// could hang or exhaust memory (a device, a FIFO, /proc): every string it
// holds, decoded as the harness decodes YAML, is checked. A file that does
// not decode is checked as it is, and one with escapes is left out.
func unsafePath(data []byte) bool {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return bytes.ContainsRune(data, '\\') || unsafeString(string(data))
	}
	unsafe := false
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			unsafe = unsafe || unsafeString(v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				unsafe = unsafe || unsafeString(k)
				walk(e)
			}
		}
	}
	walk(doc)
	return unsafe
}

func unsafeString(s string) bool {
	for _, p := range []string{"/dev", "/proc", "/sys"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// checkUsageError fails unless err is nil or bad input as the CLI reports
// it: exit 2, one line.
func checkUsageError(t *testing.T, what string, input any, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitUsage {
		t.Fatalf("%s %q: error is not bad input (exit 2): %T %v", what, input, err, err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("%s %q: error is not one line: %q", what, input, err.Error())
	}
}

// loadRun parses args as `run` does and loads the options (file, flags,
// validation): everything run does before it starts a cluster.
func loadRun(args ...string) (runOptions, error) {
	o := defaultRunOptions()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, usageError("%v (see 'run-conformance run --help')", err)
	}
	return o, o.load(fs)
}

// writeFuzzFile writes data into a new temp dir and returns the path.
func writeFuzzFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// renderedOptions is an options file as the matrix writes one for each
// target (every field), for `run --options`.
func renderedOptions(t *testing.T, o runOptions) []byte {
	t.Helper()
	data, err := yaml.Marshal(o)
	if err != nil {
		t.Fatalf("options do not render: %v\n%+v", err, o)
	}
	return data
}

// checkRoundTrip checks that options, rendered as the matrix renders them
// and read back by `run --options`, load, and then render and read back
// the same (the first reading may fill in defaults, such as the kind
// topology of a kubeconfig target).
func checkRoundTrip(t *testing.T, o runOptions) {
	t.Helper()
	reload := func(data []byte) []byte {
		t.Helper()
		file := writeFuzzFile(t, "rendered.yaml", data)
		back, err := loadRun("--options=" + file)
		if err != nil {
			t.Fatalf("rendered options do not load: %v\n%s", err, data)
		}
		return renderedOptions(t, back)
	}
	first := renderedOptions(t, o)
	second := reload(first)
	if third := reload(second); !bytes.Equal(second, third) {
		t.Fatalf("options change when rendered and read back:\n%s\nthen\n%s\nthen\n%s", first, second, third)
	}
}

const fuzzKubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`

// readmeOptions is the options file docs/running.md shows (every default).
const readmeOptions = `# options.yaml — every field optional; these are the defaults
provider: embedded
apiservers: 1
nodes: 1                # hollow kubelets (embedded)
referenceInitializers: true  # install reference/initializers when specs need it
parallel: 0             # specs at once; 0: 4 per CPU, at least 4, at most 8; 1: one after another
inCluster: false        # run the harness in the cluster (providers kubeconfig and kind)
image: ""               # the harness image the cluster pulls (in-cluster)
imageArchive: ""        # kind, in-cluster: the archive loaded into the nodes (default: this binary's)
suites: []              # all
profiles: []            # all
supportedFeatures: []
reportDir: _artifacts
history: ""             # no history
implementation:         # optional; all of organization, project, url, version, or none
  organization: ""
  project: ""
  url: ""
  version: ""
  contact: []
bounds:
  webhookConfigPropagation: 1s   # contract: config change -> enforced (seed 002)
  policyPropagation: 2s          # contract: admission policy change -> enforced
  timingSlack: 500ms             # contract: how late a timed behaviour may complete
  nodeAdmission: 2s              # pod bound to a node -> the node's decision in its status
  podBinding: 2s                 # last scheduling gate removed -> pod bound
  initializerConfigPropagation: 1s  # InitializerConfiguration change -> new pods follow it (seed 002; + timingSlack)
  initializerLoadingBlock: 5s    # no configuration read for this long -> creations blocked (seed 002; + timingSlack)
  initializerGlobalTimeout: 10s  # reference initializers: pod age at which read repair removes the head initializer (seed 002's example: 10m)
  initializerRepairInterval: 1s  # reference initializers: gap between two read-repair sweeps (+ 1s truncation + timingSlack)
  clusterStart: 3m               # harness waits from here on
  clusterStop: 1m
  webhookReady: 30s
  objectState: 30s
  schedulingGateHold: 2s         # how long a gated pod is watched to stay unbound
  pollInterval: 20ms
  spec: 3m
  cleanup: 1m
  interruptStop: 20s
  harnessStarved: 100ms          # report threshold
`

// FuzzOptionsFile: `run --options FILE`. The file is decoded over the
// defaults, flags typed on the command line are applied again, and the
// result is validated; options that load render (as the matrix writes
// them) and read back the same.
func FuzzOptionsFile(f *testing.F) {
	fuzzEnv(f)
	for _, seed := range []string{
		readmeOptions,
		"suites: [ordering]\nprofiles: [core]\napiservers: 3\napiserverArgs: [\"--v=2\"]\nreportDir: from-file\nbounds:\n  timingSlack: 2s\n",
		"provider: embedded\nnoSuchField: 1\n",
		":::: [\n",
		"apiservers: many\n",
		"labelFilter: \"(((\"\n",
		"focus: [\"(\"]\n",
		"inCluster: true\n",
		"apiservers: 3\netcdDelays: [\"1=1500ms\"]\n",
		"provider: kind\nkind: {topology: ha, image: \"kindest/node:v1.37.2\", cluster: ac, keepCluster: true}\n",
		"provider: kind\ninCluster: true\nimage: admission-conformance/run-conformance:v1\n",
		"provider: kubeconfig\nkubeconfig: KUBECONFIG\ncontext: x\nwebhookHost: 10.0.0.1\n",
		"provider: kubeconfig\nkubeconfig: KUBECONFIG\ninCluster: true\nimage: registry.example/run-conformance:v1\nnodeAdmissionNodes: [node-0]\n",
		"provider: kubeconfig\nkubeconfig: KUBECONFIG\npluginImage: \"Bad Ref!\"\n",
		"implementation: {organization: o, project: p, url: \"https://example.test\", version: v1, contact: [\"@me\"]}\n",
		"implementation: {project: p}\n",
		"labelFilter: \"suite:ordering && !profile:extended\"\nfocus: [Mutating]\nskip: [\"[z-a]\"]\n",
		"supportedFeatures: [AuditLog, Teleport]\n",
		"bounds: {spec: -1s}\n",
		"bounds: {timingSlack: 3}\n",
		"parallel: -1\nnodes: -1\n",
		"reportDir: \"\"\n",
		"history: hist\n",
		"null\n",
		"",
	} {
		f.Add([]byte(seed), "")
		f.Add([]byte(seed), "--profile=extended")
	}
	f.Add([]byte("suites: [ordering]\n"), "--bound=webhookReady=5s")
	f.Add([]byte("provider: kubeconfig\nkubeconfig: KUBECONFIG\n"), "--context=nope")
	f.Fuzz(func(t *testing.T, data []byte, flag string) {
		if unsafePath(data) || unsafeString(flag) {
			t.Skip("names a device or /proc")
		}
		dir := t.TempDir()
		kc := filepath.Join(dir, "kubeconfig")
		if err := os.WriteFile(kc, []byte(fuzzKubeconfig), 0o600); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "options.yaml")
		if err := os.WriteFile(file, bytes.ReplaceAll(data, []byte("KUBECONFIG"), []byte(kc)), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"--options=" + file}
		if flag != "" {
			args = append(args, flag)
		}
		o, err := loadRun(args...)
		checkUsageError(t, "options file", string(data), err)
		if err == nil {
			checkRoundTrip(t, o)
		}
	})
}

// readmeMatrix is matrix.yaml as docs/matrix.md shows it, its kubeconfig target
// pointed at a kubeconfig the fuzz function writes.
const readmeMatrix = `# matrix.yaml
kind: Matrix
dir: _matrix            # the matrix dir (flag --dir)
parallel: 2             # targets at once (flag --parallel)
image: registry.example/run-conformance:v1   # what kubeconfig targets pull (flag --image)
run:                    # options every target's run takes
  suites: [ordering, webhooks]
  bounds: {webhookReady: 45s}
targets:
- name: prod            # a DNS label: names the target's report dir
  kubeconfig: KUBECONFIG
  context: x
  supportedFeatures: [AuditLog]   # claimed for this target only
- name: kind-ha         # a kind cluster to create and delete
  kind: {topology: ha, nodeImage: admission-conformance/kind-node:v1.36.3}
`

// loadMatrix loads a matrix as `matrix` does before it starts anything,
// into a matrix dir below dir, and checks that every target's options, as
// the matrix writes them to options.yaml, load with `run --options`.
func loadMatrix(t *testing.T, dir string, o matrixOptions, what string, input any) {
	t.Helper()
	o.dir = filepath.Join(dir, "m")
	o.parallel = 2
	plan, err := o.load(false, false, false)
	checkUsageError(t, what, input, err)
	if err != nil {
		return
	}
	if len(plan.targets) == 0 || plan.parallel < 1 {
		t.Fatalf("%s %q: a plan without targets or with parallel %d", what, input, plan.parallel)
	}
	for _, p := range plan.targets {
		if !p.options.InCluster || !strings.HasPrefix(p.options.ReportDir, plan.dir) {
			t.Fatalf("%s %q: target %s is not an in-cluster run into the matrix dir: %+v", what, input, p.name, p.options)
		}
		checkRoundTrip(t, p.options)
	}
	if _, err := os.Stat(plan.dir); err == nil {
		t.Fatalf("%s %q: loading the matrix created %s", what, input, plan.dir)
	}
}

// FuzzMatrixFile: `matrix -f matrix.yaml`, every target's run options
// validated as run validates them.
func FuzzMatrixFile(f *testing.F) {
	fuzzEnv(f)
	for _, seed := range []string{
		readmeMatrix,
		"targets:\n- name: a\n  kind: {}\n",
		"kind: Matrix\ntargets:\n- {name: a, kubeconfig: KUBECONFIG}\n- {name: a, kubeconfig: KUBECONFIG}\n",
		"kind: NotAMatrix\ntargets: [{name: a, kind: {}}]\n",
		"targets: [{name: previous, kind: {}}]\n",
		"targets: [{name: Bad_Name, kind: {}}]\n",
		"targets: [{name: a}]\n",
		"targets: [{name: a, kubeconfig: KUBECONFIG, kind: {topology: ha}}]\n",
		"targets: [{name: a, kind: {topology: star}}]\n",
		"targets: [{name: a, kind: {topology: single, nodeImage: \"kindest/node:v1..x:y\"}, context: c}]\n",
		"run: {provider: kind}\ntargets: [{name: a, kind: {}}]\n",
		"run: {suites: [nope]}\ntargets: [{name: a, kind: {}}]\n",
		"run: [1, 2]\ntargets: [{name: a, kind: {}}]\n",
		"run: {parallel: 3, labelFilter: \"spec:A ||| spec:B\"}\ntargets: [{name: a, kind: {}}]\n",
		"parallel: -1\ntargets: [{name: a, kind: {}}]\n",
		"targets: []\n",
		"targets:\n- name: k\n  kubeconfig: KUBECONFIG\n  image: \"Bad Ref!\"\n  nodeAdmissionNodes: [node-0]\n",
		"noSuchField: 1\ntargets: [{name: a, kind: {}}]\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if unsafePath(data) {
			t.Skip("names a device or /proc")
		}
		dir := t.TempDir()
		kc := filepath.Join(dir, "kubeconfig")
		if err := os.WriteFile(kc, []byte(fuzzKubeconfig), 0o600); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "matrix.yaml")
		if err := os.WriteFile(file, bytes.ReplaceAll(data, []byte("KUBECONFIG"), []byte(kc)), 0o600); err != nil {
			t.Fatal(err)
		}
		loadMatrix(t, dir, matrixOptions{file: file}, "matrix file", string(data))
	})
}

// FuzzTargetFlag: `matrix --target name=N,...`, parsed and then validated
// as a target of the matrix.
func FuzzTargetFlag(f *testing.F) {
	fuzzEnv(f)
	for _, seed := range []string{
		"name=prod,kubeconfig=KUBECONFIG,context=x",
		"name=prod,kubeconfig=KUBECONFIG,context=x,image=registry.example/run-conformance:v1",
		"name=kind-ha,kind=ha,node-image=admission-conformance/kind-node:v1.36.3",
		"name=k,kind=single",
		"name=k,node-image=x:1",
		"name=k,kind=star",
		"name=k",
		"name=,kind=ha",
		"name=k,kind=ha,kubeconfig=KUBECONFIG",
		"name=k,colour=blue",
		"nonsense",
		",,,",
		"name=Bad_Name,kind=ha",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if unsafeString(spec) {
			t.Skip("names a device or /proc")
		}
		dir := t.TempDir()
		kc := filepath.Join(dir, "kubeconfig")
		if err := os.WriteFile(kc, []byte(fuzzKubeconfig), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := parseTarget(strings.ReplaceAll(spec, "KUBECONFIG", kc))
		checkUsageError(t, "--target", spec, err)
		loadMatrix(t, dir, matrixOptions{targets: []string{strings.ReplaceAll(spec, "KUBECONFIG", kc)},
			image: "registry.example/run-conformance:v1"}, "--target", spec)
	})
}

// FuzzEtcdDelay: `run --etcd-delay REPLICA=DURATION`, with --apiservers N.
func FuzzEtcdDelay(f *testing.F) {
	for _, seed := range []struct {
		delay      string
		apiservers int
	}{
		{"1=1500ms", 3}, {"0=2s", 1}, {"1=2s", 1}, {"foo", 1}, {"=1s", 3}, {"1=", 3}, {"-1=1s", 3},
		{"1=-1s", 3}, {"1=0s", 3}, {"2=1h", 3}, {"01=1.5s", 3}, {"1=1s=2s", 3}, {"+1=1µs", 2},
		{"9223372036854775808=1s", 3}, {"1=9223372036854775807ns", 2}, {"0=1s", 0},
	} {
		f.Add(seed.delay, seed.apiservers)
	}
	f.Fuzz(func(t *testing.T, delay string, apiservers int) {
		args := []string{"--etcd-delay=" + delay, fmt.Sprintf("--apiservers=%d", apiservers)}
		o, err := loadRun(args...)
		checkUsageError(t, "--etcd-delay", args, err)
		if err != nil {
			return
		}
		opts, err := o.etcdDelays()
		if err != nil || len(opts) != 1 {
			t.Fatalf("--etcd-delay %q loaded but gives %d options, %v", delay, len(opts), err)
		}
		replica, d, _ := strings.Cut(delay, "=")
		if parsed, _ := time.ParseDuration(d); parsed <= 0 || replica == "" {
			t.Fatalf("--etcd-delay %q accepted", delay)
		}
		checkRoundTrip(t, o)
	})
}

// FuzzLabelFilter: `run --label-filter`, parsed as Ginkgo parses it, then
// matched against every spec's labels to see that it selects something.
func FuzzLabelFilter(f *testing.F) {
	for _, seed := range []string{
		"suite:ordering && !profile:extended", "feature:MutatingWebhook && !profile:extended", "spec:MutatingBeforeValidating",
		"(((", "suite:ordering &&", "/[/", "spec:A ||| spec:B", "spec:NoSuchSpec", "/ordering|webhooks/", "!suite:nodeadmit",
		"suite:{ordering,webhooks}", "feature: consists-of NodeAdmission", "feature: containsAny {AuditLog}", "key: isEmpty",
		"(suite:ordering || suite:webhooks) && (profile:core, profile:reference)", "", " ", "&&", "!", "{", "a: ", ":",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, filter string) {
		_, parseErr := types.ParseLabelFilter(filter)
		err := checkLabelFilter("--label-filter", filter)
		checkUsageError(t, "--label-filter", filter, err)
		if (err == nil) != (parseErr == nil) {
			t.Fatalf("--label-filter %q: Ginkgo says %v, the check %v", filter, parseErr, err)
		}
		o, err := loadRun("--label-filter=" + filter)
		checkUsageError(t, "--label-filter", filter, err)
		if err == nil {
			if parseErr != nil {
				t.Fatalf("--label-filter %q loaded though Ginkgo rejects it: %v", filter, parseErr)
			}
			checkRoundTrip(t, o)
		}
	})
}

// FuzzFocusSkip: `run --focus` and `--skip`, compiled as Ginkgo compiles
// them.
func FuzzFocusSkip(f *testing.F) {
	for _, seed := range []string{"Mutating", "(", "a**", "[z-a]", "^ordering/.*Order$", `\p{Greek}`, "(?i)policy", "x{1001}", "", "|"} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, expr string, skip bool) {
		flag := "--focus"
		if skip {
			flag = "--skip"
		}
		o, err := loadRun(flag + "=" + expr)
		checkUsageError(t, flag, expr, err)
		if err == nil {
			checkRoundTrip(t, o)
		}
	})
}

// FuzzBoundFlag: `run --bound name=duration`, then the bounds validated.
func FuzzBoundFlag(f *testing.F) {
	for _, seed := range []string{
		"webhookReady=5s", "webhookConfigPropagation=2500ms", "speed=1s", "webhookReady", "webhookReady=fast",
		"clusterStart=-1s", "spec=0", "timingSlack=1h2m3.5s", "pollInterval=1ns", "harnessStarved=9223372036854775807ns", "=1s", "",
	} {
		f.Add(seed)
	}
	keys := bounds.Keys()
	f.Fuzz(func(t *testing.T, bound string) {
		o, err := loadRun("--bound=" + bound)
		checkUsageError(t, "--bound", bound, err)
		if err != nil {
			return
		}
		key, value, _ := strings.Cut(bound, "=")
		d, perr := time.ParseDuration(value)
		if perr != nil || d <= 0 {
			t.Fatalf("--bound %q accepted", bound)
		}
		if !slices.Contains(keys, key) {
			t.Fatalf("--bound %q accepted for a bound that is not one of %v", bound, keys)
		}
		checkRoundTrip(t, o)
	})
}

// resultsSeeds are results.json files: reporttest's synthetic run (a case
// in every state, measurements, a journal, field use), one whose failed
// case is a spec this harness has, and broken ones.
func resultsSeeds(t0 time.Time) [][]byte {
	var seeds [][]byte
	add := func(r results.Results) {
		data, err := json.Marshal(r)
		if err != nil {
			panic(err)
		}
		seeds = append(seeds, data)
	}
	full := reporttest.Results(t0, 1)
	full.Summarize()
	add(full)
	real := results.Results{APIVersion: results.APIVersion, Kind: results.Kind, StartedAt: t0, FinishedAt: t0.Add(time.Minute),
		Specs: []results.Spec{
			{Suite: "ordering", ShortName: "MutatingBeforeValidating", Name: "MutatingBeforeValidating calls every mutating webhook first", State: results.Failed, Profile: "core", Message: "boom"},
			{Suite: "ordering", ShortName: "MutatingBeforeValidating", Name: "MutatingBeforeValidating on update", State: results.Passed, Profile: "core"},
		}}
	real.Summarize()
	add(real)
	outside := real
	outside.Specs = []results.Spec{{Suite: "ordering", Name: "[BeforeSuite]", State: results.Failed}}
	add(outside)
	unknown := real
	unknown.Specs = []results.Spec{{Suite: "ordering", ShortName: "NoSuchSpec", Name: "NoSuchSpec", State: results.Failed, Profile: "core"}}
	add(unknown)
	passed := real
	passed.Specs = []results.Spec{{Suite: "ordering", ShortName: "MutatingBeforeValidating", State: results.Passed, Profile: "core"}}
	add(passed)
	for _, s := range []string{
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results"}`,
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results","specs":null,"coverage":{}}`,
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results","specs":[{"state":"failed","measurements":[{"name":"m","value":1e308,"unit":"s","bound":-1e308,"lower":0}]}]}`,
		`{"apiVersion":"v0","kind":"Results"}`,
		`{"kind":"Results"`,
		`[]`,
		`null`,
		``,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

var fuzzT0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// FuzzRerunFailed: `run --rerun-failed RESULTS`: the label filter of the
// specs that failed, then the options it selects validated.
func FuzzRerunFailed(f *testing.F) {
	for _, seed := range resultsSeeds(fuzzT0) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := writeFuzzFile(t, results.FileName, data)
		filter, err := rerunFilter(file)
		checkUsageError(t, "--rerun-failed", string(data), err)
		if err == nil && filter != "" {
			if _, perr := types.ParseLabelFilter(filter); perr != nil {
				t.Fatalf("--rerun-failed %q: the filter %q does not parse: %v", data, filter, perr)
			}
		}
		o, lerr := loadRun("--rerun-failed="+file, "--report-dir="+filepath.Join(t.TempDir(), "out"))
		checkUsageError(t, "--rerun-failed", string(data), lerr)
		if (err == nil) != (lerr == nil) && !strings.Contains(fmt.Sprint(lerr), "no spec matches") {
			t.Fatalf("--rerun-failed %q: the filter says %v, loading %v", data, err, lerr)
		}
		if lerr == nil && o.rerunFilter != filter {
			t.Fatalf("--rerun-failed %q: filter %q, loaded %q", data, filter, o.rerunFilter)
		}
	})
}

// executeCommand runs one command of the CLI (not run, which would start a
// cluster) with args, its output discarded, as the root command would.
func executeCommand(t *testing.T, cmd *cobra.Command, args ...string) error {
	t.Helper()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError("%v", err) })
	return cmd.Execute()
}

// FuzzReportResults: `report RESULTS --report-dir DIR`: results.json read,
// report.yaml, junit.xml and report.html written (into a temp dir).
func FuzzReportResults(f *testing.F) {
	for _, seed := range resultsSeeds(fuzzT0) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := writeFuzzFile(t, results.FileName, data)
		out := filepath.Join(t.TempDir(), "out")
		err := executeCommand(t, newReportCommand(), file, "--report-dir", out)
		checkUsageError(t, "report", string(data), err)
		if err == nil {
			for _, name := range []string{results.FileName, "report.yaml", "junit.xml", "report.html"} {
				if _, serr := os.Stat(filepath.Join(out, name)); serr != nil {
					t.Fatalf("report %q: %v", data, serr)
				}
			}
		}
	})
}

// FuzzCompareResults: `compare OLD NEW` (text and JSON) and `compare
// --matrix OLD NEW --html DIR`.
func FuzzCompareResults(f *testing.F) {
	seeds := resultsSeeds(fuzzT0)
	later := resultsSeeds(fuzzT0.Add(time.Hour))
	for i := range seeds {
		f.Add(seeds[i], later[(i+1)%len(later)])
	}
	slower := reporttest.Results(fuzzT0.Add(time.Hour), 50)
	slower.Specs[4].State = results.Failed
	slower.Summarize()
	data, _ := json.Marshal(slower)
	f.Add(seeds[0], data)
	f.Fuzz(func(t *testing.T, old, cur []byte) {
		oldFile := writeFuzzFile(t, results.FileName, old)
		curFile := writeFuzzFile(t, results.FileName, cur)
		check := func(what string, err error) {
			t.Helper()
			var ee *exitError
			if err != nil && errors.As(err, &ee) && ee.code == exitFailed {
				return // a regression, or states that differ
			}
			checkUsageError(t, what, [2]string{string(old), string(cur)}, err)
		}
		check("compare", executeCommand(t, newCompareCommand(), oldFile, curFile))
		check("compare -o json", executeCommand(t, newCompareCommand(), "-o", "json", oldFile, curFile))
		check("compare --matrix", executeCommand(t, newCompareCommand(), "--matrix", "--html", t.TempDir(), oldFile, curFile))
	})
}

// FuzzFetchedResults: the results.json an in-cluster run fetched, as run
// --in-cluster --history reads it (keepInHistory): kept in the history,
// report.html redrawn with the trends over the kept runs.
func FuzzFetchedResults(f *testing.F) {
	for _, seed := range resultsSeeds(fuzzT0) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reportDir := t.TempDir()
		if err := os.WriteFile(filepath.Join(reportDir, results.FileName), data, 0o600); err != nil {
			t.Fatal(err)
		}
		o := runOptions{ReportDir: reportDir, History: filepath.Join(t.TempDir(), "history")}
		if err := keepInHistory(o); err != nil {
			// finish turns it into bad input.
			checkUsageError(t, "fetched results", string(data), usageError("%v", err))
			return
		}
		if _, err := os.Stat(filepath.Join(reportDir, "report.html")); err != nil {
			t.Fatalf("fetched results %q: %v", data, err)
		}
	})
}
