package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/certify"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
)

// runCLIIn runs the CLI with args, TMPDIR tmp and working dir work, and the
// extra environment env.
func runCLIIn(t *testing.T, tmp, work string, env []string, args ...string) cliResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = work
	cmd.Env = append(append(os.Environ(), asMain+"=1", "TMPDIR="+tmp), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{code: code, stdout: stdout.String(), stderr: stderr.String(), tmp: tmp, work: work}
}

// snapshot lists every file and dir below root with its size, mode and
// modification time, to see that nothing changed.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		out[rel] = fmt.Sprintf("%d %s %s", info.Size(), info.Mode(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffSnapshots(before, after map[string]string) []string {
	var diff []string
	for p, v := range before {
		if w, ok := after[p]; !ok {
			diff = append(diff, "removed "+p)
		} else if w != v {
			diff = append(diff, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diff = append(diff, "created "+p)
		}
	}
	sort.Strings(diff)
	return diff
}

// Run dirs of embedded clusters, as runs leave them: one whose run died (a
// pid no process has), one whose run is alive (this test).
const (
	deadRunDir = embedded.DirPrefix + "dead"
	liveRunDir = embedded.DirPrefix + "live"
)

func writeRunDirs(t *testing.T, tmp string) {
	t.Helper()
	for dir, pid := range map[string]int{deadRunDir: 1<<22 + 1, liveRunDir: os.Getpid()} {
		if err := os.MkdirAll(filepath.Join(tmp, dir, "etcd"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, dir, "owner.pid"), []byte(fmt.Sprint(pid)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, dir, "etcd", "db"), bytes.Repeat([]byte{1}, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEveryBadInputIsOneLineExitTwoAndStartsNothing: every kind of bad
// input, to every command, is refused before anything starts: exit 2, one
// line on stderr naming what is wrong, nothing on stdout, and TMPDIR (which
// holds a dead run's dir and a live one's), the working dir and the input
// files exactly as they were. A bad input does not even clean up.
func TestEveryBadInputIsOneLineExitTwoAndStartsNothing(t *testing.T) {
	in := t.TempDir()
	file := func(name, content string) string {
		t.Helper()
		p := filepath.Join(in, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	resultsFile := func(name string, specs ...results.Spec) string {
		t.Helper()
		dir := filepath.Join(in, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path, err := results.Write(dir, results.Results{APIVersion: results.APIVersion, Kind: results.Kind, Specs: specs,
			StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	aFile := file("a-file", "not a directory\n")
	emptyDir := filepath.Join(in, "empty-dir")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	malformedKubeconfig := file("kubeconfig-malformed", "this: is: not: a kubeconfig")
	unreachable := file("kubeconfig-unreachable", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`)
	unknownField := file("options-unknown-field.yaml", "provider: embedded\nnoSuchField: 1\n")
	notYAML := file("options-not-yaml.yaml", ":::: [\n")
	wrongType := file("options-wrong-type.yaml", "apiservers: many\n")
	badFilterInFile := file("options-bad-filter.yaml", "labelFilter: \"(((\"\n")
	badFocusInFile := file("options-bad-focus.yaml", "focus: [\"(\"]\n")
	inClusterEmbedded := file("options-in-cluster-embedded.yaml", "inCluster: true\n")
	// The pod's role, in options files a user wrote: refused.
	pods := 0
	podFile := func(options string) string {
		pods++
		return file(fmt.Sprintf("options-pod-%d.yaml", pods), options+"child: {pod: {runID: abc}}\n")
	}
	podKubeconfig := func(role string) string {
		pods++
		return file(fmt.Sprintf("options-pod-%d.yaml", pods), "provider: kubeconfig\nkubeconfig: "+unreachable+"\nchild: {pod: "+role+"}\n")
	}
	const validPod = `{runID: abc, webhookListen: ":8443", webhookAdvertise: "10.0.0.1:443", publishResults: admission-conformance-run-abc}`
	matrixUnknownField := file("matrix-unknown-field.yaml", "targetz: []\n")
	matrixRunProvider := file("matrix-run-provider.yaml", "run: {provider: kind}\ntargets: [{name: a, kind: {topology: single}}]\n")
	matrixRunBadSuite := file("matrix-run-bad-suite.yaml", "run: {suites: [nope]}\ntargets: [{name: a, kind: {topology: single}}]\n")
	matrixTwice := file("matrix-twice.yaml", "targets: [{name: a, kind: {}}, {name: a, kind: {}}]\n")
	matrixKind := file("matrix-kind.yaml", "kind: Config\ntargets: [{name: a, kind: {}}]\n")
	runOptionsProvider := file("run-options-provider.yaml", "provider: kind\n")
	repeatZeroInFile := file("options-repeat-zero.yaml", "repeat: 0\n")
	vendorKey, _, err := certify.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	signKey := file("vendor.key", string(vendorKey))
	file("matrix-foreign/a/notes.txt", "mine\n")
	matrixForeign := filepath.Join(in, "matrix-foreign")
	corrupt := file("corrupt/results.json", "{")
	passed := resultsFile("passed", results.Spec{ShortName: "MutatingBeforeValidating", Suite: "ordering", Profile: "core", State: results.Passed})
	unknownSpec := resultsFile("unknown-spec", results.Spec{ShortName: "NoSuchSpec", Suite: "ordering", Profile: "core", State: results.Failed})
	outsideSpecs := resultsFile("outside-specs", results.Spec{ShortName: "BeforeSuite", State: results.Failed})
	corruptHistory := filepath.Join(in, "history-corrupt")
	file("history-corrupt/2026-01-02T03-04-05Z/results.json", "{")
	missing := filepath.Join(in, "missing")
	statedImplementation := []string{"--implementation-organization", "o", "--implementation-project", "p", "--implementation-version", "v1"}
	digest := "sha256:" + strings.Repeat("0", 64)

	cases := []struct {
		name string
		args []string
		want string // the bad thing, named in the error
	}{
		// run: selection
		{"unknown suite", []string{"run", "--suite", "nope"}, `unknown suite "nope"`},
		{"unknown profile", []string{"run", "--profile", "gold"}, `unknown profile "gold"`},
		{"unknown feature", []string{"run", "--supported-features", "Teleport"}, `unknown feature "Teleport"`},
		{"label filter unbalanced", []string{"run", "--label-filter", "((("}, `--label-filter "((("`},
		{"label filter dangling operator", []string{"run", "--label-filter", "suite:ordering &&"}, `--label-filter "suite:ordering &&"`},
		{"label filter bad regexp", []string{"run", "--label-filter", "/[/"}, `--label-filter "/[/"`},
		{"label filter tripled bar", []string{"run", "--label-filter", "spec:A ||| spec:B"}, `--label-filter "spec:A ||| spec:B"`},
		{"label filter selects nothing", []string{"run", "--label-filter", "spec:NoSuchSpec"}, "no spec matches the selection"},
		{"suite and profile select nothing", []string{"run", "--suite", "nodeadmit", "--profile", "core"}, "no spec matches the selection"},
		{"focus not a regexp", []string{"run", "--focus", "("}, `--focus "("`},
		{"second focus not a regexp", []string{"run", "--focus", "Mutating", "--focus", "a**"}, `--focus "a**"`},
		{"skip not a regexp", []string{"run", "--skip", "[z-a]"}, `--skip "[z-a]"`},
		// run: bounds
		{"unknown bound", []string{"run", "--bound", "speed=1s"}, `unknown bound "speed"`},
		{"bound without a value", []string{"run", "--bound", "webhookReady"}, `"webhookReady"`},
		{"bound not a duration", []string{"run", "--bound", "webhookReady=fast"}, `"fast"`},
		{"negative bound", []string{"run", "--bound", "clusterStart=-1s"}, "clusterStart"},
		// run: options file
		{"unreadable options file", []string{"run", "--options", missing}, "cannot read options file"},
		{"options file is a dir", []string{"run", "--options", emptyDir}, "cannot read options file"},
		{"options file with unknown field", []string{"run", "--options", unknownField}, "noSuchField"},
		{"options file not YAML", []string{"run", "--options", notYAML}, filepath.Base(notYAML)},
		{"options file wrong type", []string{"run", "--options", wrongType}, "apiservers"},
		{"options file bad label filter", []string{"run", "--options", badFilterInFile}, `"((("`},
		{"options file bad focus", []string{"run", "--options", badFocusInFile}, `--focus "("`},
		// run: flags and arguments
		{"unknown flag", []string{"run", "--frobnicate"}, "unknown flag: --frobnicate"},
		{"argument", []string{"run", "extra"}, `"extra"`},
		{"unknown provider", []string{"run", "--provider", "docker"}, `unknown provider "docker"`},
		{"no apiservers", []string{"run", "--apiservers", "0"}, "--apiservers"},
		{"apiservers not a number", []string{"run", "--apiservers", "x"}, `invalid argument "x" for "--apiservers"`},
		{"repeat zero", []string{"run", "--repeat", "0"}, "--repeat must be at least 1"},
		{"repeat negative", []string{"run", "--repeat", "-3"}, "--repeat must be at least 1 (how many times each selected case runs; 1 runs each once), got -3"},
		{"repeat not a number", []string{"run", "--repeat", "two"}, `invalid argument "two" for "--repeat" flag: not a whole number: give how many times each selected case runs, at least 1`},
		{"repeat over its ceiling", []string{"run", "--repeat", "1000"}, "--repeat 1000 is over the ceiling of 100 repetitions"},
		{"repeat zero in an options file", []string{"run", "--options", repeatZeroInFile}, "--repeat must be at least 1"},
		{"repeat only measured without repeat", []string{"run", "--repeat-only-measured"}, "--repeat-only-measured goes with --repeat 2 or more"},
		{"certify repeat zero", []string{"certify", "--sign-key", signKey, "--repeat", "0"}, "--repeat must be at least 1"},
		{"negative nodes", []string{"run", "--nodes", "-1"}, "--nodes"},
		{"bad apiserver flag", []string{"run", "--apiserver-arg=--bogus"}, "bad kube-apiserver flag"},
		{"etcd delay of a missing replica", []string{"run", "--etcd-delay", "1=2s"}, "replica 1"},
		{"etcd delay malformed", []string{"run", "--etcd-delay", "foo"}, `"foo"`},
		{"unknown node fault", []string{"run", "--node-fault", "bogus"}, `"bogus"`},
		{"unknown initializers fault", []string{"run", "--reference-initializers-fault", "bogus"}, `"bogus"`},
		// run: files and dirs
		{"rerun-failed missing", []string{"run", "--rerun-failed", missing}, "--rerun-failed"},
		{"rerun-failed corrupt", []string{"run", "--rerun-failed", corrupt}, "not a results.json"},
		{"rerun-failed unknown spec", []string{"run", "--rerun-failed", unknownSpec}, "NoSuchSpec"},
		{"rerun-failed outside specs", []string{"run", "--rerun-failed", outsideSpecs}, "failed outside any spec"},
		{"empty report dir", []string{"run", "--report-dir", ""}, "--report-dir"},
		{"report dir is a file", []string{"run", "--report-dir", aFile}, "--report-dir " + aFile},
		{"report dir below a file", []string{"run", "--report-dir", filepath.Join(aFile, "sub")}, "--report-dir " + filepath.Join(aFile, "sub")},
		{"history is a file", []string{"run", "--history", aFile}, "--history " + aFile},
		{"history with a corrupt run", []string{"run", "--history", corruptHistory}, "--history " + corruptHistory},
		{"implementation url not http", append([]string{"run", "--implementation-url", "ftp://x"}, statedImplementation...), "ftp://x"},
		{"implementation incomplete", []string{"run", "--implementation-project", "p"}, "implementation"},
		// run: providers
		{"kubeconfig flag with embedded", []string{"run", "--kubeconfig", unreachable}, "go with --provider kubeconfig"},
		{"malformed kubeconfig", []string{"run", "--provider", "kubeconfig", "--kubeconfig", malformedKubeconfig}, malformedKubeconfig},
		{"missing kubeconfig", []string{"run", "--provider", "kubeconfig", "--kubeconfig", missing}, missing},
		{"unknown context", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--context", "nope"}, `"nope"`},
		{"webhook host not an IP", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--webhook-host", "nope"}, `"nope"`},
		{"plugin image with embedded", []string{"run", "--plugin-image", "example.test/h:v1"}, "--plugin-image"},
		{"node admission nodes with embedded", []string{"run", "--node-admission-nodes", "node-0"}, "--node-admission-nodes goes with --provider kubeconfig"},
		{"node admission node not a name", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--node-admission-nodes", "Node_0"}, `--node-admission-nodes "Node_0" is not a node name`},
		{"plugin image not a reference", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--plugin-image", "Bad Ref!"}, `--plugin-image "Bad Ref!"`},
		{"plugin image with a bad digest", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--plugin-image", "x@sha256:zz"}, `--plugin-image "x@sha256:zz"`},
		{"plugin image and webhook host", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--plugin-image", "x:1", "--webhook-host", "10.0.0.1"}, "give one"},
		// run: in-cluster mode (and the flags its pod gets)
		{"in-cluster with embedded", []string{"run", "--in-cluster"}, "--in-cluster goes with --provider kubeconfig or kind"},
		{"in-cluster in the options file with embedded", []string{"run", "--options", inClusterEmbedded}, "--in-cluster goes with"},
		{"in-cluster without image", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster"}, "--in-cluster needs --image"},
		{"image without in-cluster", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--image", "x:1"}, "go with --in-cluster"},
		{"in-cluster image not a reference", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster", "--image", "Bad Ref!"}, `--image "Bad Ref!"`},
		{"in-cluster with webhook host", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster", "--image", "x:1", "--webhook-host", "10.0.0.1"}, "drop --webhook-host"},
		{"in-cluster with plugin image", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster", "--image", "x:1", "--plugin-image", "x:1"}, "--plugin-image"},
		{"service account without in-cluster", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--service-account", "ns/sa"}, "--service-account go with --in-cluster"},
		{"service account without slash", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster", "--image", "x:1", "--service-account", "runner"}, `--service-account "runner" has no '/': give NAMESPACE/NAME`},
		{"service account without namespace", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster", "--image", "x:1", "--service-account", "/runner"}, "both parts of NAMESPACE/NAME must be given"},
		{"service account without name", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster", "--image", "x:1", "--service-account", "ns/"}, "both parts of NAMESPACE/NAME must be given"},
		{"service account bad name", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster", "--image", "x:1", "--service-account", "ns/Run_Ner"}, "is not a service account name"},
		{"in-cluster image archive with kubeconfig", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable, "--in-cluster", "--image", "x:1", "--image-archive", aFile}, "--image-archive goes with --provider kind"},
		{"in-cluster kind image without tag", []string{"run", "--provider", "kind", "--in-cluster", "--image", "example.test/h"}, `--image "example.test/h" needs a tag`},
		{"in-cluster kind archive missing", []string{"run", "--provider", "kind", "--in-cluster", "--image-archive", missing}, "--image-archive " + missing},
		{"in-cluster kind archive is a dir", []string{"run", "--provider", "kind", "--in-cluster", "--image-archive", emptyDir}, "--image-archive " + emptyDir},
		{"pod role with embedded", []string{"run", "--options", podFile("")}, "in-cluster pod's own"},
		{"pod role with in-cluster", []string{"run", "--options", podFile("provider: kubeconfig\nkubeconfig: " + unreachable + "\ninCluster: true\nimage: x:1\n")}, "in-cluster pod's own"},
		{"pod run ID", []string{"run", "--options", podKubeconfig(`{runID: UPPER, webhookListen: ":8443", webhookAdvertise: "10.0.0.1:443", publishResults: ns}`)}, `"UPPER"`},
		{"pod listen without advertise", []string{"run", "--options", podKubeconfig(`{runID: abc, webhookListen: ":8443", publishResults: ns}`)}, "go together"},
		{"pod advertise not an IP", []string{"run", "--options", podKubeconfig(`{runID: abc, webhookListen: ":8443", webhookAdvertise: "webhooks:443", publishResults: ns}`)}, `webhookAdvertise "webhooks:443"`},
		{"pod webhook name", []string{"run", "--options", podKubeconfig(`{runID: abc, webhookListen: ":8443", webhookAdvertise: "10.0.0.1:443", webhookNames: [Not_A_Name], publishResults: ns}`)}, `"Not_A_Name"`},
		{"pod publish not a namespace", []string{"run", "--options", podKubeconfig(`{runID: abc, webhookListen: ":8443", webhookAdvertise: "10.0.0.1:443", publishResults: Not_A_Namespace}`)}, "publishResults"},
		{"pod role outside the pod", []string{"run", "--options", podKubeconfig(validPod)}, "in-cluster pod's own, which runs in namespace admission-conformance-run-abc"},
		{"pod role with flags", []string{"run", "--options", podKubeconfig(validPod), "--suite", "ordering"}, "give no flag with it"},
		{"worker role", []string{"run", "--options", file("options-worker.yaml", "child: {worker: {parentPID: 1, attach: /nonexistent/attach.json}}\n")}, "worker's own"},
		{"worker role without attach", []string{"run", "--options", file("options-worker-no-attach.yaml", "child: {worker: {parentPID: 1}}\n")}, "child.worker needs attach"},
		{"two roles", []string{"run", "--options", file("options-two-roles.yaml", "child: {worker: {attach: a}, pod: {runID: abc}}\n")}, "give one of worker, pod and plane"},
		{"kind image not a reference", []string{"run", "--provider", "kind", "--kind-image", "kindest/node:v1..x:y"}, `--kind-image "kindest/node:v1..x:y"`},
		{"kind topology unknown", []string{"run", "--provider", "kind", "--kind-topology", "star"}, `"star"`},
		{"kind cluster name", []string{"run", "--provider", "kind", "--kind-cluster", "Bad_Name"}, `--kind-cluster "Bad_Name"`},
		{"kind flag with embedded", []string{"run", "--kind-topology", "ha"}, "go with --provider kind"},
		{"apiservers with kind", []string{"run", "--provider", "kind", "--apiservers", "3"}, "go with --provider embedded"},
		// list
		{"list output", []string{"list", "--output", "yaml"}, `"yaml"`},
		{"list features and contract", []string{"list", "--features", "--contract"}, "--features and --contract"},
		{"list markdown alone", []string{"list", "--markdown"}, "--markdown"},
		{"list coverage alone", []string{"list", "--coverage"}, "--coverage goes with --contract"},
		{"list coverage markdown", []string{"list", "--contract", "--coverage", "--markdown"}, "--coverage prints a table or json"},
		{"list argument", []string{"list", "extra"}, `"extra"`},
		// compare
		{"compare nothing", []string{"compare"}, "received 0"},
		{"compare three", []string{"compare", passed, passed, passed}, "received 3"},
		{"compare missing", []string{"compare", missing, passed}, "OLD " + missing},
		{"compare corrupt", []string{"compare", passed, corrupt}, "NEW " + corrupt},
		{"compare one file", []string{"compare", aFile}, aFile},
		{"compare empty history", []string{"compare", emptyDir}, "keeps 0 run(s)"},
		{"compare negative threshold", []string{"compare", "--threshold-relative", "-1", passed, passed}, "--threshold-relative"},
		{"compare NaN threshold", []string{"compare", "--threshold-of-bound", "NaN", passed, passed}, "--threshold-of-bound"},
		{"compare negative duration", []string{"compare", "--threshold-absolute", "-1s", passed, passed}, "--threshold-absolute"},
		{"compare output", []string{"compare", "--output", "xml", passed, passed}, `"xml"`},
		{"compare matrix of one", []string{"compare", "--matrix", passed}, "needs two runs or more, got 1"},
		{"compare matrix of none", []string{"compare", "--matrix"}, "needs two runs or more, got 0"},
		{"compare matrix missing", []string{"compare", "--matrix", passed, missing}, "RUN 2 " + missing},
		{"compare matrix corrupt", []string{"compare", "--matrix", passed, passed, corrupt}, "RUN 3 " + corrupt},
		{"compare matrix empty history", []string{"compare", "--matrix", emptyDir, passed}, "RUN 1 " + emptyDir},
		{"compare matrix html in a missing dir", []string{"compare", "--matrix", "--html", filepath.Join(missing, "m.html"), passed, passed}, missing},
		{"compare html without matrix", []string{"compare", "--html", emptyDir, passed, passed}, "--html goes with --matrix"},
		{"compare matrix output", []string{"compare", "--matrix", "-o", "yaml", passed, passed}, `"yaml"`},
		// report
		{"report nothing", []string{"report"}, "received 0"},
		{"report missing", []string{"report", missing}, "RESULTS " + missing},
		{"report dir is a file", []string{"report", passed, "--report-dir", aFile}, "--report-dir " + aFile},
		{"report history is a file", []string{"report", passed, "--history", aFile}, "--history " + aFile},
		{"report implementation", append([]string{"report", passed, "--implementation-url", "ftp://x"}, statedImplementation...), "ftp://x"},
		// cleanup
		{"cleanup timeout", []string{"cleanup", "--timeout", "0"}, "--timeout"},
		{"cleanup missing kubeconfig", []string{"cleanup", "--kubeconfig", missing}, missing},
		{"cleanup unknown context", []string{"cleanup", "--kubeconfig", unreachable, "--context", "nope"}, `"nope"`},
		{"cleanup run ID", []string{"cleanup", "--run", "not a label!"}, `--run "not a label!"`},
		{"cleanup argument", []string{"cleanup", "extra"}, `"extra"`},
		// results
		{"results run ID", []string{"results", "--run", "not a label!"}, `--run "not a label!"`},
		{"results run ID too long", []string{"results", "--run", strings.Repeat("a", 40)}, "--run"},
		{"results missing kubeconfig", []string{"results", "--kubeconfig", missing}, missing},
		{"results unknown context", []string{"results", "--kubeconfig", unreachable, "--context", "nope"}, `"nope"`},
		{"results report dir is a file", []string{"results", "--kubeconfig", unreachable, "--run", "abc", "--report-dir", aFile}, "--report-dir " + aFile},
		{"results argument", []string{"results", "extra"}, `"extra"`},
		// matrix
		{"matrix without targets", []string{"matrix"}, "no target"},
		{"matrix file missing", []string{"matrix", "-f", missing}, "cannot read matrix file"},
		{"matrix file unknown field", []string{"matrix", "-f", matrixUnknownField}, "targetz"},
		{"matrix file of another kind", []string{"matrix", "-f", matrixKind}, `kind "Config"`},
		{"matrix run sets the provider", []string{"matrix", "-f", matrixRunProvider}, "provider is the target's own"},
		{"matrix options set the provider", []string{"matrix", "--options", runOptionsProvider, "--target", "name=a,kind=single"}, "provider is the target's own"},
		{"matrix run bad suite", []string{"matrix", "-f", matrixRunBadSuite}, `target a: unknown suite "nope"`},
		{"matrix target twice", []string{"matrix", "-f", matrixTwice}, "target a is listed twice"},
		{"matrix target both", []string{"matrix", "--target", "name=a,kind=single,kubeconfig=" + unreachable}, "not both"},
		{"matrix target neither", []string{"matrix", "--target", "name=a"}, "target a: give kubeconfig"},
		{"matrix target name", []string{"matrix", "--target", "name=Bad_Name,kind=single"}, `target name "Bad_Name"`},
		{"matrix target syntax", []string{"matrix", "--target", "foo"}, `--target "foo"`},
		{"matrix target key", []string{"matrix", "--target", "name=a,color=red"}, `unknown key "color"`},
		{"matrix kubeconfig target without image", []string{"matrix", "--target", "name=a,kubeconfig=" + unreachable}, "target a: --in-cluster needs --image"},
		{"matrix kubeconfig target missing", []string{"matrix", "--image", "x:1", "--target", "name=a,kubeconfig=" + missing}, missing},
		{"matrix kind topology", []string{"matrix", "--target", "name=a,kind=star"}, `"star"`},
		{"matrix parallel", []string{"matrix", "--parallel", "0", "--target", "name=a,kind=single"}, "--parallel"},
		{"matrix dir is a file", []string{"matrix", "--dir", aFile, "--target", "name=a,kind=single"}, "--dir " + aFile},
		{"matrix dir holds foreign files", []string{"matrix", "--dir", matrixForeign, "--target", "name=a,kind=single"}, "holds files no matrix run wrote"},
		{"matrix argument", []string{"matrix", "extra"}, `"extra"`},
		// image
		{"image without output", []string{"image"}, "--output"},
		{"image output in a missing dir", []string{"image", "-o", filepath.Join(missing, "x.tar")}, missing},
		{"image output is a dir", []string{"image", "-o", emptyDir}, emptyDir},
		{"image ref not a reference", []string{"image", "-o", filepath.Join(in, "x.tar"), "--ref", "Bad Ref"}, `--ref "Bad Ref"`},
		{"image ref without tag", []string{"image", "-o", filepath.Join(in, "x.tar"), "--ref", "example.test/h"}, `--ref "example.test/h" needs a tag`},
		{"image ref with digest", []string{"image", "-o", filepath.Join(in, "x.tar"), "--ref", "example.test/h:v1@" + digest}, "needs a tag and no digest"},
		// version and the root
		{"version argument", []string{"version", "extra"}, `"extra"`},
		{"version flag", []string{"version", "--bogus"}, "--bogus"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown root flag", []string{"--bogus"}, "--bogus"},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d bad inputs", len(cases))
	}
	inputs := snapshot(t, in)
	started := time.Now()
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				tmp, work := t.TempDir(), t.TempDir()
				writeRunDirs(t, tmp)
				before := snapshot(t, tmp)
				r := runCLIIn(t, tmp, work, nil, tc.args...)
				if r.code != 2 {
					t.Errorf("exit code %d, want 2; stderr: %s", r.code, r.stderr)
				}
				if !strings.HasPrefix(r.stderr, "run-conformance: ") || !strings.HasSuffix(r.stderr, "\n") || strings.Count(r.stderr, "\n") != 1 {
					t.Errorf("stderr is not one line:\n%s", r.stderr)
				}
				if !strings.Contains(r.stderr, tc.want) {
					t.Errorf("error %q does not name %q", strings.TrimSpace(r.stderr), tc.want)
				}
				if r.stdout != "" {
					t.Errorf("stdout:\n%s", r.stdout)
				}
				if diff := diffSnapshots(before, snapshot(t, tmp)); len(diff) > 0 {
					t.Errorf("TMPDIR changed: %v", diff)
				}
				if left := leftovers(t, work); len(left) > 0 {
					t.Errorf("created in the working dir: %v", left)
				}
			})
		}
	})
	t.Logf("%d bad inputs in %.1fs", len(cases), time.Since(started).Seconds())
	if diff := diffSnapshots(inputs, snapshot(t, in)); len(diff) > 0 {
		t.Errorf("input files changed: %v", diff)
	}
}

// TestUnreachableClusterFailsInSetUpAndRemovesDeadRunsFiles: a cluster
// that does not answer is not bad input: the run starts (removing the
// files runs killed earlier left, never a live run's), then fails in set-up
// with one line and exit 2.
func TestUnreachableClusterFailsInSetUpAndRemovesDeadRunsFiles(t *testing.T) {
	unreachable := unreachableKubeconfig(t)
	tmp, work := t.TempDir(), t.TempDir()
	writeRunDirs(t, tmp)
	r := runCLIIn(t, tmp, work, nil, "run", "--provider", "kubeconfig", "--kubeconfig", unreachable)
	r.mustExit(t, 2)
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "does not answer") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if left := leftovers(t, tmp); len(left) != 1 || left[0] != liveRunDir {
		t.Errorf("TMPDIR holds %v, want only the live run's dir %s", left, liveRunDir)
	}
	if want := "removed the files of a killed run: " + filepath.Join(tmp, deadRunDir); !strings.Contains(r.stdout, want) {
		t.Errorf("stdout does not say %q:\n%s", want, r.stdout)
	}
}
