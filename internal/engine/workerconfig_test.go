package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
	"github.com/admission-conformance/admission-conformance/internal/runner"
	_ "github.com/admission-conformance/admission-conformance/suites/ordering" // specs to select
)

// TestWorkerOptionsCarryTheParentsChoices: the options file a parallel
// run writes for a worker decodes, in the worker, to what the parent
// chose for it: its spec, the focus and skips, its report dir, the bounds,
// the attach file, its node slot and its repetition; and it validates.
func TestWorkerOptionsCarryTheParentsChoices(t *testing.T) {
	parent := runconfig.Default()
	parent.Provider, parent.Parallel, parent.Repeat, parent.Skip = "embedded", 4, 3, []string{"Slow"}
	parent.Bounds.Spec.Duration = 7 * time.Minute
	dir := t.TempDir()
	p := &parallelRun{o: parent, attach: filepath.Join(dir, "attach.json"),
		runOpts: runner.Options{Selection: runner.Selection{Focus: []string{"a"}, Skip: parent.Skip}}}
	s := spec.All()[0]
	u := parallel.Unit{Spec: s, NodeSlot: 2}
	reportDir := filepath.Join(dir, s.ShortName+".rep3")
	if err := os.Mkdir(reportDir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(reportDir, "options.yaml")
	if err := runconfig.WriteChild(path, p.workerConfig(u, 3, reportDir, []string{"^exact$"})); err != nil {
		t.Fatal(err)
	}
	w, err := runconfig.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatalf("the worker's options do not validate: %v", err)
	}
	role := w.Worker()
	if role == nil || role.Attach != p.attach || role.NodeSlot != 2 || role.Repetition != 3 || role.ParentPID != os.Getpid() || w.Pod() != nil {
		t.Fatalf("worker role %+v", role)
	}
	if w.LabelFilter != "spec:"+s.ShortName || !slices.Equal(w.Focus, []string{"^exact$"}) || !slices.Equal(w.Skip, parent.Skip) || w.ReportDir != reportDir {
		t.Errorf("selection %q %v %v, report dir %s", w.LabelFilter, w.Focus, w.Skip, w.ReportDir)
	}
	if w.Bounds != parent.Bounds {
		t.Errorf("bounds %+v, want %+v", w.Bounds, parent.Bounds)
	}
	// A worker runs its one spec, once per worker: it repeats nothing
	// itself nor starts workers of its own.
	if w.Repeat != 1 || w.Workers() != runconfig.DefaultWorkers() || w.InCluster {
		t.Errorf("repeat %d, parallel %d, in-cluster %v", w.Repeat, w.Parallel, w.InCluster)
	}
	// Read in this process, the file is not from its parent.
	if err := w.CheckFromParent(false); err == nil {
		t.Error("a worker's options accepted by a process its writer did not start")
	}
}
