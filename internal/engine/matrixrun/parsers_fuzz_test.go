package matrixrun

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/inputtest"
)

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
func loadMatrix(t *testing.T, dir string, o Options, what string, input any) {
	t.Helper()
	o.Dir = filepath.Join(dir, "m")
	o.Parallel = 2
	plan, err := o.Load(false, false, false)
	inputtest.CheckUsageError(t, what, input, err)
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
		inputtest.RoundTrip(t, p.options)
	}
	if _, err := os.Stat(plan.dir); err == nil {
		t.Fatalf("%s %q: loading the matrix created %s", what, input, plan.dir)
	}
}

// FuzzMatrixFile: `matrix -f matrix.yaml`, every target's run options
// validated as run validates them.
func FuzzMatrixFile(f *testing.F) {
	inputtest.Env(f)
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
		if inputtest.UnsafePath(data) {
			t.Skip("names a device or /proc")
		}
		dir, kc := inputtest.KubeconfigDir(t)
		file := filepath.Join(dir, "matrix.yaml")
		if err := os.WriteFile(file, bytes.ReplaceAll(data, []byte("KUBECONFIG"), []byte(kc)), 0o600); err != nil {
			t.Fatal(err)
		}
		loadMatrix(t, dir, Options{File: file}, "matrix file", string(data))
	})
}

// FuzzTargetFlag: `matrix --target name=N,...`, parsed and then validated
// as a target of the matrix.
func FuzzTargetFlag(f *testing.F) {
	inputtest.Env(f)
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
		if inputtest.UnsafeString(spec) {
			t.Skip("names a device or /proc")
		}
		dir, kc := inputtest.KubeconfigDir(t)
		_, err := parseTarget(strings.ReplaceAll(spec, "KUBECONFIG", kc))
		inputtest.CheckUsageError(t, "--target", spec, err)
		loadMatrix(t, dir, Options{Targets: []string{strings.ReplaceAll(spec, "KUBECONFIG", kc)},
			Image: "registry.example/run-conformance:v1"}, "--target", spec)
	})
}
