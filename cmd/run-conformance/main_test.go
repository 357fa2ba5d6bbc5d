package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// The harness's own tests run the CLI as a child process (this test binary,
// re-executed as main), because Ginkgo runs specs once per process and
// because exit codes and leftovers are what users see.
const asMain = "RUN_CONFORMANCE_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	nodes.RunIfChild() // the embedded cluster's nodes are this binary too
	if os.Getenv(asMain) == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

type cliResult struct {
	code           int
	stdout, stderr string
	tmp            string // the child's TMPDIR
	work           string // the child's working dir
}

// runCLI runs the CLI with args in a fresh TMPDIR and working dir.
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp, work := t.TempDir(), t.TempDir()
	cmd := exec.Command(exe, args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), asMain+"=1", "TMPDIR="+tmp)
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

// leftovers lists what a run left in its TMPDIR, ignoring Go's own build
// cache folders.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	return left
}

func TestBadInputIsOneLineExitTwoAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	badKubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(badKubeconfig, []byte("this: is: not: a kubeconfig"), 0o600); err != nil {
		t.Fatal(err)
	}
	unreachable := filepath.Join(dir, "unreachable")
	if err := os.WriteFile(unreachable, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	badOptions := filepath.Join(dir, "options.yaml")
	if err := os.WriteFile(badOptions, []byte("provider: embedded\nnoSuchField: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown provider", []string{"run", "--provider", "docker"}, `unknown provider "docker"`},
		{"unknown suite", []string{"run", "--suite", "nope"}, `unknown suite "nope"`},
		{"unknown feature", []string{"run", "--supported-features", "Teleport"}, `unknown feature "Teleport"`},
		{"unknown profile", []string{"run", "--profile", "gold"}, `unknown profile "gold"`},
		{"unknown bound", []string{"run", "--bound", "speed=1s"}, `unknown bound "speed"`},
		{"unreadable options file", []string{"run", "--options", filepath.Join(dir, "missing.yaml")}, "cannot read options file"},
		{"options file with unknown field", []string{"run", "--options", badOptions}, "noSuchField"},
		{"unknown flag", []string{"run", "--frobnicate"}, "unknown flag: --frobnicate"},
		{"malformed kubeconfig", []string{"run", "--provider", "kubeconfig", "--kubeconfig", badKubeconfig}, "kubeconfig"},
		{"unreachable cluster", []string{"run", "--provider", "kubeconfig", "--kubeconfig", unreachable}, "does not answer"},
		{"kubeconfig flag with embedded", []string{"run", "--kubeconfig", unreachable}, "go with --provider kubeconfig"},
		{"bad apiserver flag", []string{"run", "--apiserver-arg=--bogus"}, "bad kube-apiserver flag"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, tc.args...)
			if r.code != 2 {
				t.Errorf("exit code %d, want 2; stderr: %s", r.code, r.stderr)
			}
			msg := strings.TrimRight(r.stderr, "\n")
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line:\n%s", msg)
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not say %q", msg, tc.want)
			}
			if left := leftovers(t, r.tmp); len(left) > 0 {
				t.Errorf("left behind in TMPDIR: %v", left)
			}
			// Only a cluster that does not answer gets as far as creating
			// the report dir (its components.log is the diagnosis).
			if left := leftovers(t, r.work); len(left) > 0 && tc.name != "unreachable cluster" {
				t.Errorf("left behind in the working dir: %v", left)
			}
		})
	}
}

func TestListNeedsNoCluster(t *testing.T) {
	r := runCLI(t, "list")
	if r.code != 0 || !strings.Contains(r.stdout, "MutatingBeforeValidating") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "list", "--features", "-o", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"MutatingWebhook"`) {
		t.Fatalf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

func readResults(t *testing.T, dir string) results.Results {
	t.Helper()
	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func findSpec(t *testing.T, res results.Results, shortName string) results.Spec {
	t.Helper()
	for _, s := range res.Specs {
		if s.ShortName == shortName {
			return s
		}
	}
	t.Fatalf("no result for %s in %+v", shortName, res.Specs)
	return results.Spec{}
}

// mustExit stops the test unless the CLI exited with want, showing what it
// printed.
func (r cliResult) mustExit(t *testing.T, want int) {
	t.Helper()
	if r.code != want {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
	}
}
