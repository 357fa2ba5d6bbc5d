package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report/matrix"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

func TestSplitWords(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   "",
		"--suite ordering":                   "--suite|ordering",
		"  --focus 'Mutating.*Validating'  ": "--focus|Mutating.*Validating",
		`--focus "a b" --skip c\ d`:          "--focus|a b|--skip|c d",
		`--focus "say \"hi\"" x''y`:          `--focus|say "hi"|xy`,
		"--suite ordering --focus MutatingBefore": "--suite|ordering|--focus|MutatingBefore",
	} {
		got, err := splitWords(in)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("splitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"--focus 'x", `--focus "x`} {
		if _, err := splitWords(bad); err == nil {
			t.Errorf("splitWords(%q) accepted", bad)
		}
	}
}

func TestParseFlags(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	o, err := parseFlags([]string{"--repo", repo, "--versions", "v1.36.3,v1.37.2 v1.38.0-beta.0", "--run-flags", "--suite ordering"})
	if err != nil || strings.Join(o.versions, " ") != "v1.36.3 v1.37.2 v1.38.0-beta.0" || strings.Join(o.runFlags, " ") != "--suite ordering" || !filepath.IsAbs(o.artifacts) {
		t.Errorf("%+v %v", o, err)
	}
	o, err = parseFlags([]string{"--repo", repo})
	if err != nil || strings.Join(o.versions, " ") != DefaultVersions {
		t.Errorf("default versions: %v %v", o.versions, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--versions", "1.36"}, `"1.36" is not a Kubernetes release`},
		{[]string{"--versions", "v1.38.0-gamma.1"}, `"v1.38.0-gamma.1" is not a Kubernetes release`},
		{[]string{"--versions", "v1.38.0-beta"}, `"v1.38.0-beta" is not a Kubernetes release`},
		{[]string{"--versions", "v1.36.3 v1.36.3"}, "given twice"},
		{[]string{"--versions", " "}, "no version"},
		{[]string{"--run-flags", "--focus 'x"}, "unterminated"},
		{[]string{"--run-flags", "--report-dir=x"}, "--report-dir is set per version"},
		{[]string{"--timeout", "0s"}, "--timeout"},
		{[]string{"v1.36.3"}, "unexpected arguments"},
		{[]string{"--bogus"}, "bogus"},
		{[]string{"--repo", t.TempDir()}, "not the harness checkout"},
	} {
		args := c.args
		if c.args[0] != "--repo" {
			args = append([]string{"--repo", repo}, c.args...)
		}
		if _, err := parseFlags(args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

func TestExitCode(t *testing.T) {
	for want, statuses := range map[int][]string{
		0: {Passed, Passed},
		1: {Passed, Failed},
		2: {Failed, Error, Passed},
	} {
		var ocs []Outcome
		for i, s := range statuses {
			oc := Outcome{Version: fmt.Sprintf("v1.3%d.0", i), Status: s}
			if s != Error { // a version that ran has results
				oc.res, oc.file = reporttest.Results(time.Now(), 1), "results.json"
			}
			ocs = append(ocs, oc)
		}
		_, got, err := writeMatrix(options{artifacts: t.TempDir()}, ocs, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%v: exit %d, want %d", statuses, got, want)
		}
	}
}

func TestPinnedVersion(t *testing.T) {
	dir := t.TempDir()
	gomod := filepath.Join(dir, "go.mod")
	for content, want := range map[string]string{
		"module x\n\nrequire (\n\tk8s.io/api v0.36.3\n\tk8s.io/kubernetes v1.36.3\n)\n": "v1.36.3",
		"module x\nrequire k8s.io/kubernetes v1.37.2 // indirect\n":                     "v1.37.2",
		"module x\nreplace k8s.io/kubernetes => ../k\n":                                 "",
	} {
		if err := os.WriteFile(gomod, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := pinnedVersion(gomod)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("%q: %q %v, want %q", content, got, err, want)
		}
	}
}

// fakeRepo is a git checkout with a go.mod pinning v1.36.3 and an update
// script that records each call and pins the version it is given.
func fakeRepo(t *testing.T) (repo, calls string) {
	t.Helper()
	repo = t.TempDir()
	calls = filepath.Join(t.TempDir(), "calls")
	files := map[string]string{
		"go.mod": "module x\n\nrequire k8s.io/kubernetes v1.36.3\n",
		"go.sum": "",
		"hack/update-kubernetes.sh": "set -e\necho \"$1\" >>" + calls + "\n" +
			"printf 'module x\\n\\nrequire k8s.io/kubernetes %s\\n' \"$1\" >go.mod\n" +
			"echo \"// generated for $1\" >internal/kubecompat/kubecompat_generated.go\n",
		"internal/kubecompat/kubecompat_generated.go": "// generated for v1.36.3\n",
		"internal/kubecompat/v1_36.go.txt":            "// template\n",
		"main.go":                                     "package main\n",
	}
	for rel, content := range files {
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo, calls
}

// The copy is moved once per version and kept moved while nothing the move
// depends on changes; the repo's own version is never moved.
func TestPrepareMovesOnlyWhenNeeded(t *testing.T) {
	repo, calls := fakeRepo(t)
	work := t.TempDir()
	ctx := context.Background()
	prep := func(v string) bool {
		t.Helper()
		moved, err := prepare(ctx, repo, filepath.Join(work, v), v, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		return moved
	}
	read := func(path string) string {
		data, _ := os.ReadFile(path)
		return string(data)
	}
	src := filepath.Join(work, "v1.37.2", "src")
	if !prep("v1.37.2") || !strings.Contains(read(filepath.Join(src, "go.mod")), "v1.37.2") {
		t.Fatalf("first prepare did not move the copy: %s", read(filepath.Join(src, "go.mod")))
	}
	// A change elsewhere reaches the copy; the move is kept.
	if err := os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if prep("v1.37.2") || read(filepath.Join(src, "main.go")) != "package main // changed\n" ||
		read(filepath.Join(src, "internal/kubecompat/kubecompat_generated.go")) != "// generated for v1.37.2\n" {
		t.Errorf("second prepare: go.mod %q, main.go %q", read(filepath.Join(src, "go.mod")), read(filepath.Join(src, "main.go")))
	}
	// A change of go.mod moves it again.
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n\nrequire k8s.io/kubernetes v1.36.3\n// changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !prep("v1.37.2") {
		t.Errorf("a changed go.mod did not move the copy again")
	}
	// The version go.mod pins needs no move.
	if prep("v1.36.3") {
		t.Errorf("the pinned version was moved")
	}
	if got := strings.Fields(read(calls)); strings.Join(got, " ") != "v1.37.2 v1.37.2" {
		t.Errorf("update script calls %v, want two for v1.37.2", got)
	}
	// A failing move is an error and leaves no stamp: the next prepare tries again.
	if err := os.WriteFile(filepath.Join(repo, "hack/update-kubernetes.sh"), []byte("echo 'Kubernetes 1.99 is not supported' >&2; exit 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := prepare(ctx, repo, filepath.Join(work, "v1.99.0"), "v1.99.0", func(string) {})
	if err == nil || !strings.Contains(err.Error(), "Kubernetes 1.99 is not supported") {
		t.Errorf("failing update: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "v1.99.0", "update.stamp")); !os.IsNotExist(err) {
		t.Errorf("a failed move left a stamp")
	}
}

func TestWriteMatrix(t *testing.T) {
	art := t.TempDir()
	o := options{artifacts: art, runFlags: []string{"--suite", "ordering"}}
	var outcomes []Outcome
	for i, v := range []string{"v1.36.3", "v1.37.2"} {
		res := reporttest.Results(time.Date(2026, 5, 1, 10+i, 0, 0, 0, time.UTC), 1)
		res.Cluster.KubernetesVersion = v
		s := res.Summary
		outcomes = append(outcomes, Outcome{Version: v, Status: Failed, ReportDir: filepath.Join(art, v), PrepareSeconds: 1, BuildSeconds: 90, RunSeconds: 61,
			Summary: &s, res: res, file: filepath.Join(art, v, results.FileName)})
	}
	outcomes[1].ReleaseTable = "passed: 1 gates, 1 apiserver plugins, 1 kubelet handlers: 3 mapped to clauses, 0 out of scope, 0 not observable here, 0 unknown"
	outcomes[1].TableSeconds = 5
	outcomes = append(outcomes, Outcome{Version: "v1.35.4", Status: Error, PrepareSeconds: 3, BuildSeconds: 20, Detail: "build failed: exit status 1: undefined: x"})
	outcomes = append(outcomes, Outcome{Version: "v1.38.0-beta.0", Status: Error, PreRelease: true, Toolchain: "go1.27.3", PrepareSeconds: 9, TableSeconds: 300, BuildSeconds: 7,
		ReleaseTable: "passed: 0 unknown", Detail: "build failed: the module proxy does not serve k8s.io/ktesting"})
	text, code, err := writeMatrix(o, outcomes, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"run flags: --suite ordering",
		"  v1.36.3          1s       -        1m30s    1m1s     failed: 4 passed, 1 failed, 1 skipped, 2 not supported",
		"  v1.37.2          1s       5s       1m30s    1m1s     failed: 4 passed, 1 failed, 1 skipped, 2 not supported; release table passed: 1 gates,",
		"  v1.35.4          3s       -        20s      -        error: build failed: exit status 1: undefined: x",
		"  v1.38.0-beta.0*  9s       5m0s     7s       -        error: build failed: the module proxy does not serve k8s.io/ktesting; release table passed: 0 unknown; Go go1.27.3",
		"  * a pre-release of Kubernetes",
		"    v1.36.3        v1.37.2        case",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, f := range []string{"matrix.txt", "matrix.json", "matrix.html"} {
		data, err := os.ReadFile(filepath.Join(art, f))
		if err != nil {
			t.Error(err)
			continue
		}
		if f == "matrix.html" && !strings.Contains(string(data), "undefined: x") {
			t.Errorf("matrix.html does not say why v1.35.4 has no column")
		}
	}
	// matrix.json is the matrix command's: the unbuilt version is a target in
	// error, with its steps' times; the exit code is the versions'.
	m, err := matrix.Read(filepath.Join(art, matrix.JSONName))
	if err != nil {
		t.Fatal(err)
	}
	if m.APIVersion != matrix.APIVersion || m.Kind != matrix.Kind || m.ExitCode != code || m.ExitCode != 2 ||
		strings.Join(m.RunFlags, " ") != "--suite ordering" || len(m.Targets) != 4 {
		t.Fatalf("matrix.json: %+v", m)
	}
	unbuilt := m.Targets[2]
	if unbuilt.Name != "v1.35.4" || unbuilt.State != matrix.Error || !strings.Contains(unbuilt.Error, "undefined: x") ||
		fmt.Sprint(unbuilt.Steps) != "[{prepare 3} {release table 0} {build 20} {run 0}]" || unbuilt.HasResults() || unbuilt.PreRelease {
		t.Errorf("the unbuilt version: %+v", unbuilt)
	}
	if beta := m.Targets[3]; !beta.PreRelease || !strings.Contains(beta.Description, "(pre-release), built with go1.27.3; release table passed: 0 unknown") {
		t.Errorf("the pre-release: %+v", beta)
	}
	if got := m.Targets[0]; got.State != matrix.Failed || got.ExitCode != 1 || got.Summary == nil || got.Summary.Failed != 1 ||
		fmt.Sprint(got.Steps) != "[{prepare 1} {release table 0} {build 90} {run 61}]" || got.ReportDir != "v1.36.3" || len(m.Cases) == 0 {
		t.Errorf("a version that ran: %+v", got)
	}
}

func TestGoModToolchain(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		"module x\n\ngo 1.26.0\n":                        "",
		"module x\n\ngo 1.27.0\n\ntoolchain go1.27.3\n":  "go1.27.3",
		"module x\n\ngo 1.27.0\n\ntoolchain go1.27\n":    "go1.27",
		"module x\n\ngo 1.27.0\n// toolchain go1.27.3\n": "",
	} {
		p := filepath.Join(dir, "go.mod")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := goModToolchain(p); err != nil || got != want {
			t.Errorf("goModToolchain(%q) = %q, %v; want %q", content, got, err, want)
		}
	}
	if env := goEnv(""); env != nil {
		t.Errorf("goEnv of no toolchain = %v", env)
	}
	if env := goEnv("go1.27.3"); fmt.Sprint(env) != "[GOTOOLCHAIN=go1.27.3]" {
		t.Errorf("goEnv = %v", env)
	}
	if !isPreRelease("v1.38.0-beta.0") || isPreRelease("v1.37.2") {
		t.Error("isPreRelease")
	}
}

func TestStandIns(t *testing.T) {
	dir := t.TempDir()
	gomod := "module x\n\nreplace (\n\tk8s.io/api => k8s.io/api v0.38.0-beta.0\n\tk8s.io/ktesting => ./_output/kube-stubs/k8s.io/ktesting\n\tk8s.io/apiextensions-api => ./_output/kube-stubs/k8s.io/apiextensions-api\n)\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := standIns(dir, dir); got != "k8s.io/ktesting, k8s.io/apiextensions-api" {
		t.Errorf("standIns = %q", got)
	}
	log := "warning: x\npinned k8s.io/kubernetes v1.38.0-beta.0: 32 staging replaces at v0.38.0-beta.0 (stand-ins: k8s.io/ktesting v0.38.0-beta.0, sigs.k8s.io/structured-merge-diff/v7 v7.0.1 (as v7.0.0)), internal/kubecompat/kubecompat_generated.go from internal/kubecompat/v1_38.go.txt, toolchain go1.27.3\n"
	if err := os.WriteFile(filepath.Join(dir, "update.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := standIns(dir, dir); got != "k8s.io/ktesting v0.38.0-beta.0, sigs.k8s.io/structured-merge-diff/v7 v7.0.1 (as v7.0.0)" {
		t.Errorf("standIns from update.log = %q", got)
	}
}

func TestUndecided(t *testing.T) {
	out := `        the release table does not match Kubernetes v1.35.4 (2 problem(s)):
          stale: the table decides feature gate CSIVolumeHealth, which Kubernetes v1.35.4 does not have (or the rule no longer selects): remove its entry
          unknown: Kubernetes v1.35.4 has feature gate PodLifecycleSleepAction (GA, on, locked; read by admission code: x.go), which the table does not decide: read
    release_test.go:313: Kubernetes v1.35.4: the release table does not match Kubernetes v1.35.4 (2 problem(s)):
          stale: the table decides feature gate CSIVolumeHealth, which Kubernetes v1.35.4 does not have (or the rule no longer selects): remove its entry
          stale: the table decides kubelet pod admit handler allocation.NewPodResizesAdmitHandler, which Kubernetes v1.35.4 does not have
`
	if got := undecided(out); got != "1 unknown (PodLifecycleSleepAction), 2 stale (CSIVolumeHealth, allocation.NewPodResizesAdmitHandler)" {
		t.Errorf("undecided = %q", got)
	}
	if got := undecided("ok"); got != "" {
		t.Errorf("undecided(ok) = %q", got)
	}
}

// TestCommandKeepsTheExitCode: a run that exits 1 (a case failed) is
// told from one that could not run: command's error wraps the exit status
// (it was formatted with %v, so every failed run was reported as an error).
func TestCommandKeepsTheExitCode(t *testing.T) {
	dir := t.TempDir()
	err := command(context.Background(), dir, filepath.Join(dir, "log"), nil, "sh", "-c", "echo some output; exit 1")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(err.Error(), "some output") {
		t.Fatalf("command error %v: want the exit status 1 wrapped, with the output's tail", err)
	}
}
