package engine

import (
	"os"

	"github.com/admission-conformance/admission-conformance/internal/parallel"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// workerConfig is the options file of u's worker (rep: its repetition, 0
// when not repeated): the parent's Config narrowed to what a worker runs
// (u's spec, focused by focus, with the parent's skips), its report dir,
// and its role. The cluster, its features and the bounds are in the
// attach file the role names; the rest takes the defaults, so the worker
// validates nothing of a provider it never starts.
func (p *parallelRun) workerConfig(u parallel.Unit, rep int, reportDir string, focus []string) runconfig.Config {
	c := runconfig.Default()
	c.LabelFilter = u.LabelFilter()
	c.Focus, c.Skip = focus, p.runOpts.Selection.Skip
	c.ReportDir = reportDir
	c.Bounds = p.o.Bounds
	attach := p.attach
	if u.Plane > 0 {
		attach = p.planes[u.Plane-1].attach
	}
	c.Child = &runconfig.Child{Worker: &runconfig.WorkerRole{ParentPID: os.Getpid(), Attach: attach, NodeSlot: u.NodeSlot, Repetition: rep}}
	return c
}
