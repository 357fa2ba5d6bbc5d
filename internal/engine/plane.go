package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/engineparts"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/parallel"
	"github.com/admission-conformance/admission-conformance/internal/parallel/attached"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
)

// A parallel embedded run starts its propagation planes (see
// runconfig.Config.PropagationPlanes) beside its own control plane, at the
// same time: each a child process of this binary (`run --options FILE`,
// with the plane role) that boots another embedded control plane of the
// same build and options and writes an attach file for the workers of the
// specs that run there. The parent stops them once the specs are done.

// planeLogName is plane n's component output in the report dir.
func planeLogName(n int) string { return fmt.Sprintf("components-propagation-plane-%d.log", n) }

// plane is a running propagation plane, as its parent sees it.
type plane struct {
	name   string // "propagation plane N"
	proc   *childproc.Process
	dir    string // private: the child's options file, attach file, shared dir
	attach string
	log    *os.File
	grace  time.Duration
	ready  chan struct{} // closed once attach is written or the child failed
	err    error         // why it is not there; set before ready closes
}

// startPlanes starts the run's propagation planes (see
// runconfig.Config.PropagationPlanes), all at once. When one cannot be
// started, those started are stopped and none is used.
func startPlanes(o runconfig.Config) ([]*plane, error) {
	var planes []*plane
	for n := 1; n <= o.PropagationPlanes(); n++ {
		p, err := startPlane(o, n)
		if err != nil {
			stopPlanes(planes)
			return nil, err
		}
		planes = append(planes, p)
	}
	return planes, nil
}

// stopPlanes stops the planes at once, and waits for them.
func stopPlanes(planes []*plane) error {
	for _, p := range planes {
		p.beginStop()
	}
	var errs []error
	for _, p := range planes {
		errs = append(errs, p.stop())
	}
	return errors.Join(errs...)
}

// startPlane starts propagation plane n for the run o; it is ready once
// ready is closed with err nil.
func startPlane(o runconfig.Config, n int) (_ *plane, err error) {
	dir, err := rundir.Create("", rundir.ParallelPrefix)
	if err != nil {
		return nil, err
	}
	p := &plane{name: fmt.Sprintf("propagation plane %d", n), dir: dir, attach: filepath.Join(dir, "attach.json"), grace: o.Bounds.Cleanup.Duration, ready: make(chan struct{})}
	defer func() {
		if err != nil {
			_ = rundir.Remove(dir)
		}
	}()
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		return nil, err
	}
	c := o
	c.Nodes, c.ReferenceInitializers, c.Parallel = 0, false, 1
	c.Suites, c.Profiles, c.LabelFilter, c.Focus, c.Skip = nil, nil, "", nil, nil
	c.ReportDir, c.History = dir, ""
	c.Child = &runconfig.Child{Plane: &runconfig.PlaneRole{ParentPID: os.Getpid(), Attach: p.attach, SharedDir: shared}}
	options := filepath.Join(dir, "options.yaml")
	if err := runconfig.WriteChild(options, c); err != nil {
		return nil, err
	}
	if p.log, err = os.Create(filepath.Join(o.ReportDir, planeLogName(n))); err != nil {
		return nil, err
	}
	// Its own process group and the parent-death pipe, as a worker's.
	p.proc, err = childproc.Start(childproc.Spec{Name: p.name, Args: []string{"run", "--options", options},
		OwnGroup: true, EndWithParent: true, File: p.log})
	if err != nil {
		p.log.Close()
		return nil, err
	}
	go p.watch(o.Bounds.PollInterval.Duration)
	return p, nil
}

// watch closes ready once the attach file is there, or the child exited
// first.
func (p *plane) watch(interval time.Duration) {
	defer close(p.ready)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := os.Stat(p.attach); err == nil {
			return
		}
		select {
		case <-p.proc.Exited():
			if _, err := os.Stat(p.attach); err == nil {
				return
			}
			p.err = fmt.Errorf("%s did not start (%s): %s", p.name, p.proc.ExitStatus(), p.proc.Tail(4))
			return
		case <-t.C:
		}
	}
}

// wait returns once the plane is ready (nil) or cannot be (why).
func (p *plane) wait(ctx context.Context) error {
	select {
	case <-p.ready:
		return p.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// beginStop asks the plane to stop, without waiting (stop waits).
func (p *plane) beginStop() {
	if p != nil {
		_ = p.proc.Signal(syscall.SIGTERM)
	}
}

// stop stops the plane in order (its control plane stops and removes its
// files) and removes the parent's side. Safe to call more than once.
func (p *plane) stop() error {
	if p == nil {
		return nil
	}
	err := p.proc.Stop(p.grace)
	if exit := p.proc.Wait(); err == nil && exit.Code > 0 {
		err = fmt.Errorf("%s stopped with %s: %s (its output: %s)", p.name, exit.Status, p.proc.Tail(4), p.log.Name())
	}
	p.log.Close()
	return errors.Join(err, rundir.Remove(p.dir))
}

// kill ends the plane at once (a third signal) and removes its files and
// its control plane's, whose owner (the plane's process) is gone then.
func (p *plane) kill() {
	if p == nil {
		return
	}
	_ = p.proc.Signal(os.Kill)
	select {
	case <-p.proc.Exited():
	case <-time.After(500 * time.Millisecond):
	}
	_ = rundir.Remove(p.dir)
	_, _ = rundir.RemoveLeftovers("")
}

// servePlane is the propagation plane's process (the plane role): it
// boots the control plane, tells its parent where it is (the attach file)
// and serves until the parent stops it or dies.
func servePlane(out io.Writer, o runconfig.Config) error {
	role := o.Plane()
	ctx := childproc.ParentGone() // also ends on SIGTERM and SIGINT
	claimed, _ := features.Parse(o.SupportedFeatures)
	logger := progressLogger(out)
	started := time.Now()
	env, err := harness.Boot(ctx, harness.Config{Provider: newProvider(o, out, logger), Bounds: o.Bounds, Claimed: claimed, Logger: logger,
		ReferenceInitializers: o.Initializers(), Engine: engineparts.Run()})
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped during start-up: its parent asked, or is gone
		}
		return exitcode.Usagef("propagation plane: cluster set-up failed: %v", err)
	}
	a, err := attached.Describe(env, nil, nil)
	if err == nil {
		a.SharedDir = role.SharedDir
		err = parallel.WriteAttach(role.Attach, a)
	}
	if err != nil {
		_ = env.Close(context.Background())
		return exitcode.Usagef("propagation plane: %v", err)
	}
	fmt.Fprintf(out, "propagation plane ready in %.1fs: %s\n", time.Since(started).Seconds(), env.Cluster.Topology())
	<-ctx.Done()
	stopping := time.Now()
	if err := env.Close(context.Background()); err != nil {
		return exitcode.Usagef("propagation plane: tear-down: %v", err)
	}
	fmt.Fprintf(out, "propagation plane stopped in %.1fs\n", time.Since(stopping).Seconds())
	return nil
}
