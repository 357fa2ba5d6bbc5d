package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/report/htmltest"
	"github.com/admission-conformance/admission-conformance/internal/report/matrix"
)

// KindArtifactsEnv names a folder where the kind tests leave what a person
// should look at (make test-kind sets it): the matrix dir and the
// screenshot of its page. By default they go to a temporary folder.
const KindArtifactsEnv = "ADMISSION_CONFORMANCE_KIND_ARTIFACTS"

// TestMatrixOfKindClusters runs `matrix` over a kind single and a kind ha
// cluster it creates, at once: both targets pass every case of the
// selection, matrix.json holds a cell per case and target, and matrix.html,
// rendered in headless Chromium, shows the passed cells. No kind cluster is
// left.
func TestMatrixOfKindClusters(t *testing.T) {
	image := kindImage(t)
	browser := htmltest.Browser()
	if browser == "" {
		t.Skip("no chromium on PATH (apt-get install chromium): matrix.html cannot be looked at")
	}
	ref := "admission-conformance/run-conformance:kind-test"
	archive := harnessArchive(t, ref)
	out := os.Getenv(KindArtifactsEnv)
	if out == "" {
		out = t.TempDir()
	}
	dir := filepath.Join(out, "matrix")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "matrix.yaml")
	spec := fmt.Sprintf(`kind: Matrix
dir: %[1]s
parallel: 2
image: %[2]s
run:
  suites: [ordering]
  bounds: {clusterStart: 10m}
targets:
- name: kind-single
  image: %[2]s
  kind: {topology: single, nodeImage: %[3]s, imageArchive: %[4]s}
- name: kind-ha
  image: %[2]s
  kind: {topology: ha, nodeImage: %[3]s, imageArchive: %[4]s}
`, dir, ref, image, archive)
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	r := runCLI(t, "matrix", "-f", file)
	t.Logf("matrix of kind single and ha: %.0fs, exit %d\n%s", time.Since(started).Seconds(), r.code, tail(r.stdout, 12))
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, tail(r.stdout, 60))
	}
	m, err := matrix.Read(filepath.Join(dir, matrix.JSONName))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Targets) != 2 || m.ExitCode != 0 {
		t.Fatalf("targets %+v, exit %d", m.Targets, m.ExitCode)
	}
	for _, tg := range m.Targets {
		if tg.State != matrix.Passed || tg.Summary == nil || tg.Summary.Failed != 0 || tg.Summary.Passed == 0 {
			t.Errorf("target %s: state %s, summary %+v", tg.Name, tg.State, tg.Summary)
		}
	}
	if len(m.Cases) == 0 {
		t.Fatal("matrix.json holds no case")
	}
	for _, c := range m.Cases {
		for _, name := range []string{"kind-single", "kind-ha"} {
			if cell, ok := c.Cells[name]; !ok || cell.State != results.Passed {
				t.Errorf("%s/%s %s on %s: %+v", c.Suite, c.ShortName, c.Name, name, c.Cells[name])
			}
		}
	}
	img := htmltest.Screenshot(t, browser, filepath.Join(dir, matrix.HTMLName), filepath.Join(out, "matrix.png"), 1400, 2400)
	// td.passed's pale green fills the case cells, two per case; the
	// badges' green marks the targets and their profiles.
	cells, badges := htmltest.CountNear(img, 0xe3, 0xf6, 0xe3), htmltest.CountNear(img, 0x22, 0xaa, 0x22)
	if cells < 20*len(m.Cases) || badges < 200 {
		t.Errorf("the screenshot shows %d pixels of passed cells and %d of passed badges for %d cases (see %s)",
			cells, badges, len(m.Cases), filepath.Join(out, "matrix.png"))
	}
	t.Logf("matrix.png: %d pixels of passed cells, %d of passed badges, %d cases", cells, badges, len(m.Cases))
	if left, _ := kind.Leftovers(kind.DefaultLedgerDir()); len(left) > 0 {
		t.Errorf("kind clusters left behind: %v", left)
	}
}
