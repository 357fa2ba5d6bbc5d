package cli

// Fuzz targets for every input run-conformance parses from a user or a
// file (issue 23 item 4): here the options file, --focus and --skip,
// --bound, and results.json as report and compare read it; matrix.yaml and
// --target are fuzzed in internal/engine/matrixrun, the label filter,
// --etcd-delay and --rerun-failed in internal/runconfig, an in-cluster
// run's --history in internal/reports. Each calls the path the CLI takes
// (flags parsed into runOptions, then load and validate; or the command
// itself) and never one that starts a cluster: load and validate only read
// files, and the fuzzed commands (report, compare) need none. `make fuzz`
// runs each for FUZZTIME; `go test` replays the seeds and testdata/fuzz.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/admission-conformance/admission-conformance/framework/bounds"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/inputtest"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

// loadRun parses args as `run` does and loads the options (file, flags,
// validation): everything run does before it starts a cluster.
func loadRun(args ...string) (runOptions, error) {
	o := defaultRunOptions()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return o, exitcode.Usagef("%v (see 'run-conformance run --help')", err)
	}
	return o, o.load(fs)
}

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
serviceAccount: ""      # in-cluster: NAMESPACE/NAME of an existing service account the pod runs as (no RBAC objects created)
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
	inputtest.Env(f)
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
		// The child section only a parent writes (runconfig.ChildSection).
		"child:\n  worker: {parentPID: 1, attach: /tmp/attach.json, nodeSlot: 1, repetition: 2}\nlabelFilter: \"spec:X\"\n",
		"child:\n  worker: {parentPID: 1, attach: a, nodeSlot: -1}\n",
		"child:\n  pod: {runID: 1a2b3c4d, webhookListen: \":8443\", webhookAdvertise: \"svc:443\", publishResults: r}\nprovider: kubeconfig\n",
		"child: {worker: {attach: a}, pod: {runID: x}}\n",
		"child: {}\n",
		"child: null\n",
		"child: [1]\n",
	} {
		f.Add([]byte(seed), "")
		f.Add([]byte(seed), "--profile=extended")
	}
	f.Add([]byte("suites: [ordering]\n"), "--bound=webhookReady=5s")
	f.Add([]byte("provider: kubeconfig\nkubeconfig: KUBECONFIG\n"), "--context=nope")
	f.Fuzz(func(t *testing.T, data []byte, flag string) {
		if inputtest.UnsafePath(data) || inputtest.UnsafeString(flag) {
			t.Skip("names a device or /proc")
		}
		dir, kc := inputtest.KubeconfigDir(t)
		file := filepath.Join(dir, "options.yaml")
		if err := os.WriteFile(file, bytes.ReplaceAll(data, []byte("KUBECONFIG"), []byte(kc)), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"--options=" + file}
		if flag != "" {
			args = append(args, flag)
		}
		o, err := loadRun(args...)
		inputtest.CheckUsageError(t, "options file", string(data), err)
		if err == nil {
			inputtest.RoundTrip(t, o.Config)
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
		inputtest.CheckUsageError(t, flag, expr, err)
		if err == nil {
			inputtest.RoundTrip(t, o.Config)
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
		inputtest.CheckUsageError(t, "--bound", bound, err)
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
		inputtest.RoundTrip(t, o.Config)
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
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return exitcode.Usagef("%v", err) })
	return cmd.Execute()
}

// FuzzReportResults: `report RESULTS --report-dir DIR`: results.json read,
// report.yaml, junit.xml and report.html written (into a temp dir).
func FuzzReportResults(f *testing.F) {
	for _, seed := range inputtest.ResultsSeeds(inputtest.T0) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := inputtest.WriteFile(t, results.FileName, data)
		out := filepath.Join(t.TempDir(), "out")
		err := executeCommand(t, newReportCommand(), file, "--report-dir", out)
		inputtest.CheckUsageError(t, "report", string(data), err)
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
	seeds := inputtest.ResultsSeeds(inputtest.T0)
	later := inputtest.ResultsSeeds(inputtest.T0.Add(time.Hour))
	for i := range seeds {
		f.Add(seeds[i], later[(i+1)%len(later)])
	}
	slower := reporttest.Results(inputtest.T0.Add(time.Hour), 50)
	slower.Specs[4].State = results.Failed
	slower.Summarize(fields.Cover)
	data, _ := json.Marshal(slower)
	f.Add(seeds[0], data)
	f.Fuzz(func(t *testing.T, old, cur []byte) {
		oldFile := inputtest.WriteFile(t, results.FileName, old)
		curFile := inputtest.WriteFile(t, results.FileName, cur)
		check := func(what string, err error) {
			t.Helper()
			var ee *exitcode.Error
			if err != nil && errors.As(err, &ee) && ee.Code == exitcode.Failed {
				return // a regression, or states that differ
			}
			inputtest.CheckUsageError(t, what, [2]string{string(old), string(cur)}, err)
		}
		check("compare", executeCommand(t, newCompareCommand(), oldFile, curFile))
		check("compare -o json", executeCommand(t, newCompareCommand(), "-o", "json", oldFile, curFile))
		check("compare --matrix", executeCommand(t, newCompareCommand(), "--matrix", "--html", t.TempDir(), oldFile, curFile))
	})
}
