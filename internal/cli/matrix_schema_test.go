package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report/matrix"
)

// TestMatrixProducersWriteOneSchema: compare --matrix -o json and the
// matrix command write one matrix.json schema (apiVersion, kind), which
// matrix.Read reads back. hack/versions, a main package of its own, checks
// its matrix.json the same way (hack/versions TestWriteMatrix).
func TestMatrixProducersWriteOneSchema(t *testing.T) {
	var dirs []string
	for i, v := range []string{"v1.36.3", "v1.37.2"} {
		dirs = append(dirs, writeSyntheticRun(t, compareT0.Add(time.Duration(i)*time.Hour), func(r *results.Results) {
			r.Cluster.KubernetesVersion = v
		}))
	}
	out := t.TempDir()
	r := runCLI(t, append([]string{"compare", "--matrix", "-o", "json", "--html", out}, dirs...)...)
	r.mustExit(t, 0)
	compared := filepath.Join(out, matrix.JSONName)
	if err := os.WriteFile(compared, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}

	unreachable := unreachableKubeconfig(t)
	dir := filepath.Join(t.TempDir(), "matrix")
	r = runCLI(t, "matrix", "--dir", dir, "--image", "registry.example/run-conformance:v1",
		"--target", "name=a,kubeconfig="+unreachable, "--options", writeOptions(t, "suites: [ordering]\n"))
	r.mustExit(t, 2)

	for _, c := range []struct {
		producer, path string
		targets        int
	}{{"compare --matrix", compared, 2}, {"matrix", filepath.Join(dir, matrix.JSONName), 1}} {
		m, err := matrix.Read(c.path)
		if err != nil {
			t.Errorf("%s: %v", c.producer, err)
			continue
		}
		if m.APIVersion != matrix.APIVersion || m.Kind != matrix.Kind || len(m.Targets) != c.targets {
			t.Errorf("%s wrote apiVersion %q, kind %q, %d target(s); want %s, %s, %d", c.producer, m.APIVersion, m.Kind, len(m.Targets), matrix.APIVersion, matrix.Kind, c.targets)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(c.path), matrix.HTMLName)); err != nil {
			t.Errorf("%s: %v", c.producer, err)
		}
	}
}
