package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report/matrix"
)

// TestMatrixGoesOnPastUnreachableTargets: targets whose cluster does not
// answer are reported as such (exit 2, their error in matrix.json and
// matrix.html), each ran (one does not stop the other), and the matrix
// dir's previous run moved to previous/ and was compared with. No cluster
// is started.
func TestMatrixGoesOnPastUnreachableTargets(t *testing.T) {
	unreachable := unreachableKubeconfig(t)
	dir := filepath.Join(t.TempDir(), "matrix")
	// A previous matrix run in which target a passed.
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	prev := results.Results{APIVersion: results.APIVersion, Kind: results.Kind, StartedAt: t0, FinishedAt: t0.Add(time.Minute),
		Specs: []results.Spec{{Suite: "ordering", ShortName: "MutatingBeforeValidating", Name: "M", State: results.Passed, Profile: "core"}}}
	prev.Summarize(fields.Cover)
	if _, err := results.Write(filepath.Join(dir, "a"), prev); err != nil {
		t.Fatal(err)
	}
	if err := matrix.Write(dir, matrix.Build([]matrix.Input{{Name: "a", ReportDir: "a", Results: &prev}}, matrix.Header{HarnessVersion: "v0", Started: t0, Finished: t0})); err != nil {
		t.Fatal(err)
	}

	r := runCLI(t, "matrix", "--dir", dir, "--image", "registry.example/run-conformance:v1",
		"--target", "name=a,kubeconfig="+unreachable, "--target", "name=b,kubeconfig="+unreachable, "--options", writeOptions(t, "suites: [ordering]\n"))
	r.mustExit(t, 2)
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "a, b could not be run") {
		t.Errorf("stderr: %q", r.stderr)
	}
	for _, want := range []string{"[a] ", "[b] ", "does not answer", "matrix in " + dir} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	m, err := matrix.Read(filepath.Join(dir, matrix.JSONName))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 2 || m.ExitCode != 2 || !m.Previous {
		t.Fatalf("matrix %+v", m)
	}
	for _, tg := range m.Targets {
		if tg.State != matrix.Error || !strings.Contains(tg.Error, "does not answer") || tg.ExitCode != 2 {
			t.Errorf("target %+v", tg)
		}
	}
	if !m.Targets[0].WasRun || m.Targets[1].WasRun {
		t.Errorf("previous run: a %v, b %v", m.Targets[0].WasRun, m.Targets[1].WasRun)
	}
	for _, f := range []string{matrix.HTMLName, "previous/" + matrix.JSONName, "previous/a/results.json", "a/client.log", "a/options.yaml", "b/client.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "results.json")); err == nil {
		t.Error("the previous run's results are still in the target's report dir")
	}
	opts, _ := os.ReadFile(filepath.Join(dir, "a", "options.yaml"))
	for _, want := range []string{"inCluster: true", "provider: kubeconfig", "image: registry.example/run-conformance:v1", "- ordering"} {
		if !strings.Contains(string(opts), want) {
			t.Errorf("a/options.yaml lacks %q:\n%s", want, opts)
		}
	}
}

func writeOptions(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "options.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// unreachableKubeconfig writes a kubeconfig whose cluster does not answer
// (nothing listens on port 1) and returns its path.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
