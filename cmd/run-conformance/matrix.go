package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/cluster/kind"
	"github.com/admission-conformance/admission-conformance/framework/cluster/kubeconfig"
	"github.com/admission-conformance/admission-conformance/framework/report/matrix"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// matrixFile is matrix.yaml.
type matrixFile struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	// Dir is the matrix dir (default _matrix): one report dir per target,
	// matrix.json, matrix.html, and the previous run in previous/.
	Dir string `json:"dir,omitempty"`
	// Parallel is how many targets run at once (default 2).
	Parallel int `json:"parallel,omitempty"`
	// Image is the harness image the kubeconfig targets pull.
	Image string `json:"image,omitempty"`
	// Run are the options every target's run takes: an options file's
	// fields, but for the target's own (provider, cluster, image, report
	// dir).
	Run     json.RawMessage `json:"run,omitempty"`
	Targets []matrixTarget  `json:"targets"`
}

// matrixTarget is one cluster of the matrix: an existing one (kubeconfig)
// or a kind cluster to create; either way the run is in the cluster.
type matrixTarget struct {
	Name       string `json:"name"`
	Kubeconfig string `json:"kubeconfig,omitempty"`
	Context    string `json:"context,omitempty"`
	Image      string `json:"image,omitempty"`
	Kind       *struct {
		Topology     string `json:"topology,omitempty"`
		NodeImage    string `json:"nodeImage,omitempty"`
		Cluster      string `json:"cluster,omitempty"`
		ImageArchive string `json:"imageArchive,omitempty"`
	} `json:"kind,omitempty"`
	// SupportedFeatures are claimed for this target on top of run's.
	SupportedFeatures []string `json:"supportedFeatures,omitempty"`
	// NodeAdmissionNodes are an existing cluster's nodes with real
	// kubelets (run's --node-admission-nodes); a kind target knows its own.
	NodeAdmissionNodes []string `json:"nodeAdmissionNodes,omitempty"`
}

// matrixOwned are the run options each target sets itself.
var matrixOwned = []string{"provider", "kubeconfig", "context", "reportDir", "inCluster", "image", "imageArchive", "kind",
	"webhookHost", "pluginImage", "history", "apiservers", "apiserverArgs", "etcdDelays", "nodes", "nodeAdmissionNodes"}

const defaultMatrixDir = "_matrix"

type matrixOptions struct {
	file     string
	dir      string
	parallel int
	image    string
	options  string
	targets  []string
	// noCeilings skips checking what runs at once against this machine
	// (ceilings.go).
	noCeilings bool
}

func newMatrixCommand() *cobra.Command {
	var o matrixOptions
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Run the specs in several clusters at once (in-cluster runs) and aggregate them into matrix.json and matrix.html",
		Long: "matrix runs the conformance specs in each target cluster, concurrently (--parallel), each as 'run --in-cluster' " +
			"into its own report dir under the matrix dir, and aggregates them: matrix.json and matrix.html (spec cases x targets, " +
			"measurements side by side, each target's profiles, and the cells that regressed since the matrix dir's previous run, " +
			"kept in previous/). A target is an existing cluster (kubeconfig, context, the harness image it pulls) or a kind cluster " +
			"to create (topology, node image). A target that cannot be reached or set up is reported as such; the others go on. " +
			"Targets come from -f matrix.yaml, or --target, repeatable: name=N,kubeconfig=PATH[,context=C][,image=REF] or " +
			"name=N,kind=TOPOLOGY[,node-image=IMAGE]. Exit 0 if every target passed, 1 if a target failed a case, 2 if a target " +
			"could not be run (or bad input).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			plan, err := o.load(fs.Changed("dir"), fs.Changed("parallel"), fs.Changed("image"))
			if err != nil {
				return err
			}
			return plan.run(cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.file, "file", "f", "", "matrix file (YAML): dir, parallel, image, run (options for every target), targets")
	fs.StringVar(&o.dir, "dir", defaultMatrixDir, "the matrix dir: a report dir per target, matrix.json, matrix.html; the previous run moves to previous/")
	fs.IntVar(&o.parallel, "parallel", 2, "how many targets run at once")
	fs.StringVar(&o.image, "image", "", "the harness image kubeconfig targets pull (write it with 'run-conformance image')")
	fs.StringVar(&o.options, "options", "", "options file (run's) every target's run takes")
	fs.BoolVar(&o.noCeilings, noCeilingsFlag, false, "do not check the kind clusters and targets --parallel runs at once against what this machine holds (see docs/running.md, Ceilings)")
	fs.StringArrayVar(&o.targets, "target", nil, "a target, repeatable: name=N,kubeconfig=PATH[,context=C][,image=REF] or name=N,kind=TOPOLOGY[,node-image=IMAGE]")
	return cmd
}

// matrixPlan is a validated matrix: what each target runs.
type matrixPlan struct {
	dir      string
	parallel int
	targets  []plannedTarget
	// hostWorkers is each kind target's spec workers, when the matrix
	// chose them (shareHostWorkers); 0 otherwise.
	hostWorkers int
}

type plannedTarget struct {
	name, description string
	options           runOptions
}

// load reads the matrix file and flags and validates everything, every
// target's run included, before anything starts.
func (o matrixOptions) load(dirGiven, parallelGiven, imageGiven bool) (*matrixPlan, error) {
	var f matrixFile
	if o.file != "" {
		data, err := os.ReadFile(o.file)
		if err != nil {
			return nil, usageError("cannot read matrix file: %v", err)
		}
		if err := yaml.UnmarshalStrict(data, &f); err != nil {
			return nil, usageError("matrix file %s: %v", o.file, oneLine(err.Error()))
		}
		if f.Kind != "" && f.Kind != "Matrix" {
			return nil, usageError("matrix file %s: kind %q, want Matrix", o.file, f.Kind)
		}
	}
	if f.Dir == "" || dirGiven {
		f.Dir = o.dir
	}
	if f.Parallel == 0 || parallelGiven {
		f.Parallel = o.parallel
	}
	if f.Image == "" || imageGiven {
		f.Image = o.image
	}
	for _, spec := range o.targets {
		t, err := parseTarget(spec)
		if err != nil {
			return nil, err
		}
		f.Targets = append(f.Targets, t)
	}
	if len(f.Targets) == 0 {
		return nil, usageError("no target: give -f matrix.yaml or --target (see 'run-conformance matrix --help')")
	}
	if f.Parallel < 1 {
		return nil, usageError("--parallel must be at least 1, got %d", f.Parallel)
	}
	if err := checkOutputDir("--dir", f.Dir); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(f.Dir)
	if err != nil {
		return nil, usageError("--dir: %v", err)
	}
	base := defaultRunOptions()
	if o.options != "" {
		data, err := os.ReadFile(o.options)
		if err != nil {
			return nil, usageError("cannot read options file: %v", err)
		}
		if f.Run, err = yaml.YAMLToJSON(data); err != nil {
			return nil, usageError("options file %s: %v", o.options, err)
		}
	}
	if len(f.Run) > 0 && string(f.Run) != "null" {
		var keys map[string]any
		if err := json.Unmarshal(f.Run, &keys); err != nil {
			return nil, usageError("run options: %v", err)
		}
		for _, k := range matrixOwned {
			if _, ok := keys[k]; ok {
				return nil, usageError("run options: %s is the target's own (set it per target, or not at all)", k)
			}
		}
		if err := yaml.UnmarshalStrict(f.Run, &base); err != nil {
			return nil, usageError("run options: %v", err)
		}
	}
	previous, err := previousTargets(dir)
	if err != nil {
		return nil, err
	}
	noCeilings := o.noCeilings || base.NoCeilings
	base.NoCeilings = noCeilings
	plan := &matrixPlan{dir: dir, parallel: f.Parallel}
	seen := map[string]bool{}
	for _, t := range f.Targets {
		if errs := validation.IsDNS1123Label(t.Name); len(errs) > 0 || len(t.Name) > 40 || t.Name == "previous" {
			return nil, usageError("target name %q: use up to 40 lower-case letters, digits and '-' (not 'previous'): it names the target's report dir", t.Name)
		}
		if seen[t.Name] {
			return nil, usageError("target %s is listed twice", t.Name)
		}
		seen[t.Name] = true
		if info, err := os.Stat(filepath.Join(dir, t.Name)); err == nil && !previous[t.Name] {
			entries, _ := os.ReadDir(filepath.Join(dir, t.Name))
			if !info.IsDir() || len(entries) > 0 {
				return nil, usageError("target %s: %s holds files no matrix run wrote: move them away or choose another --dir", t.Name, filepath.Join(dir, t.Name))
			}
		}
		p, err := planTarget(t, base, f.Image, filepath.Join(dir, t.Name))
		if err != nil {
			return nil, err
		}
		plan.targets = append(plan.targets, p)
	}
	if err := plan.checkCeilings(noCeilings); err != nil { // ceilings.go
		return nil, err
	}
	shareHostWorkers(plan, base.Parallel)
	return plan, nil
}

// shareHostWorkers divides this host's default spec workers among the kind
// targets that run at once, when the run options leave --parallel to its
// default: their clusters and their pods run on this host, and each pod
// would otherwise start as many workers as the host has room for. Measured
// on 2 CPUs, three kind targets with 8 workers each starved the harness by
// up to 2.2 s and failed timing cases. Existing clusters keep the default:
// their pods run on their own nodes.
func shareHostWorkers(plan *matrixPlan, parallel int) {
	if parallel != 0 {
		return
	}
	kinds := 0
	for _, t := range plan.targets {
		if t.options.Provider == kind.Name {
			kinds++
		}
	}
	atOnce := min(kinds, max(plan.parallel, 1))
	if atOnce < 2 {
		return
	}
	for i := range plan.targets {
		if plan.targets[i].options.Provider == kind.Name {
			plan.targets[i].options.Parallel = max(1, defaultWorkers()/atOnce)
			plan.hostWorkers = plan.targets[i].options.Parallel
		}
	}
}

// parseTarget reads a --target: comma-separated key=value pairs.
func parseTarget(spec string) (matrixTarget, error) {
	var t matrixTarget
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return t, usageError("--target %q: %q is not key=value (name=N,kubeconfig=PATH[,context=C][,image=REF] or name=N,kind=TOPOLOGY[,node-image=IMAGE])", spec, kv)
		}
		switch k {
		case "name":
			t.Name = v
		case "kubeconfig":
			t.Kubeconfig = v
		case "context":
			t.Context = v
		case "image":
			t.Image = v
		case "kind", "node-image":
			if t.Kind == nil {
				t.Kind = &struct {
					Topology     string `json:"topology,omitempty"`
					NodeImage    string `json:"nodeImage,omitempty"`
					Cluster      string `json:"cluster,omitempty"`
					ImageArchive string `json:"imageArchive,omitempty"`
				}{}
			}
			if k == "kind" {
				t.Kind.Topology = v
			} else {
				t.Kind.NodeImage = v
			}
		default:
			return t, usageError("--target %q: unknown key %q (name, kubeconfig, context, image, kind, node-image)", spec, k)
		}
	}
	return t, nil
}

// planTarget is the run options of one target, validated as `run`
// validates its own.
func planTarget(t matrixTarget, base runOptions, image, reportDir string) (plannedTarget, error) {
	o := base
	o.Suites, o.Profiles, o.Focus, o.Skip = slicesClone(base.Suites), slicesClone(base.Profiles), slicesClone(base.Focus), slicesClone(base.Skip)
	o.SupportedFeatures = append(slicesClone(base.SupportedFeatures), t.SupportedFeatures...)
	o.InCluster, o.ReportDir = true, reportDir
	p := plannedTarget{name: t.Name}
	switch {
	case t.Kubeconfig != "" && t.Kind != nil:
		return p, usageError("target %s: give kubeconfig or kind, not both", t.Name)
	case t.Kubeconfig != "":
		o.Provider, o.Kubeconfig, o.Context, o.Image = kubeconfig.Name, t.Kubeconfig, t.Context, image
		o.NodeAdmissionNodes = slicesClone(t.NodeAdmissionNodes)
		if t.Image != "" {
			o.Image = t.Image
		}
		p.description = "kubeconfig " + t.Kubeconfig
		if t.Context != "" {
			p.description += " (context " + t.Context + ")"
		}
	case t.Kind != nil:
		if t.Context != "" || len(t.NodeAdmissionNodes) > 0 {
			return p, usageError("target %s: context and nodeAdmissionNodes go with kubeconfig", t.Name)
		}
		o.Provider, o.Image, o.ImageArchive = kind.Name, t.Image, t.Kind.ImageArchive
		o.Kind = kindOptions{Topology: t.Kind.Topology, Image: t.Kind.NodeImage, Cluster: t.Kind.Cluster}
		if o.Kind.Topology == "" {
			o.Kind.Topology = string(kind.Single)
		}
		p.description = "kind " + o.Kind.Topology
		if o.Kind.Image != "" {
			p.description += ", node image " + o.Kind.Image
		}
	default:
		return p, usageError("target %s: give kubeconfig (an existing cluster) or kind (a cluster to create)", t.Name)
	}
	if err := o.validate(); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return p, usageError("target %s: %v", t.Name, ee.err)
		}
		return p, usageError("target %s: %v", t.Name, err)
	}
	p.options = o
	return p, nil
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// previousTargets are the targets of the matrix run in dir, if any (their
// report dirs are the run's, not the user's).
func previousTargets(dir string) (map[string]bool, error) {
	out := map[string]bool{}
	m, err := matrix.Read(filepath.Join(dir, matrix.JSONName))
	if errors.Is(err, os.ErrNotExist) {
		if info, err := os.Stat(filepath.Join(dir, "previous")); err == nil && info.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, "previous", matrix.JSONName)); err != nil {
				return nil, usageError("--dir %s: previous/ holds no matrix run: move it away or choose another --dir", dir)
			}
		}
		return out, nil
	}
	if err != nil {
		return nil, usageError("--dir %s: %v", dir, err)
	}
	for _, t := range m.Targets {
		out[t.Name] = true
	}
	return out, nil
}

// run moves the previous run to previous/, runs the targets (at most
// parallel at once), aggregates and says how it went.
func (p *matrixPlan) run(out io.Writer) error {
	previous, err := p.keepPrevious()
	if err != nil {
		return usageError("%v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return usageError("cannot find this binary: %v", err)
	}
	var mu sync.Mutex // out and children
	children := map[*exec.Cmd]bool{}
	// Each child gets each signal once (they are in their own process
	// groups; a terminal's Ctrl-C reaches them through this process): the
	// first stops their runs in order, the second stops their waiting, the
	// third makes them and this process exit at once.
	forward := func() {
		mu.Lock()
		defer mu.Unlock()
		for c := range children {
			_ = c.Process.Signal(syscall.SIGINT)
		}
	}
	var forced atomic.Bool
	sig := watchInterrupts(func(s os.Signal) {
		forced.Store(true)
		forward()
		// Each target's run exits at once too, naming what it may have
		// left (its run ID): a moment for those lines to come through.
		for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			n := len(children)
			mu.Unlock()
			if n == 0 {
				break
			}
		}
		fmt.Fprintf(os.Stderr, "run-conformance: interrupted a third time (%s): exiting now, and so did each target's run; what a target "+
			"left in its cluster goes with the cleanup command its last line names (kind targets: 'run-conformance cleanup --kind')\n", signalName(s))
		os.Exit(exitFailed)
	})
	defer sig.stop()
	// Each target's run stops within its own bound.
	var stopBound time.Duration
	for _, t := range p.targets {
		stopBound = max(stopBound, t.options.Bounds.InterruptStop.Duration)
	}
	sig.tell(out, stopBound)
	go func() {
		<-sig.ctx.Done()
		forward()
		<-sig.again.Done()
		forward()
	}()
	started := time.Now()
	fmt.Fprintf(out, "matrix: %d target(s), %d at a time, into %s\n", len(p.targets), p.parallel, p.dir)
	if p.hostWorkers > 0 {
		fmt.Fprintf(out, "matrix: kind targets share this host: each runs %d spec workers (set the run options' parallel to choose)\n", p.hostWorkers)
	}
	inputs := make([]matrix.Input, len(p.targets))
	slots := make(chan struct{}, p.parallel)
	var wg sync.WaitGroup
	for i, t := range p.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			in := matrix.Input{Name: t.name, Description: t.description, ReportDir: t.name}
			if prev, err := results.Read(filepath.Join(p.dir, "previous", t.name, results.FileName)); err == nil && previous[t.name] {
				in.Previous = &prev
			}
			if sig.received() != nil {
				in.ExitCode, in.Error = exitUsage, "not run: the matrix was interrupted"
				inputs[i] = in
				return
			}
			begun := time.Now()
			in.ExitCode, in.Error = p.runTarget(out, &mu, children, exe, t)
			in.Duration = time.Since(begun)
			if res, err := results.Read(filepath.Join(p.dir, t.name, results.FileName)); err == nil {
				in.Results = &res
			}
			inputs[i] = in
			mu.Lock()
			fmt.Fprintf(out, "[%s] ended: exit %d in %s\n", t.name, in.ExitCode, in.Duration.Round(time.Second))
			mu.Unlock()
		}()
	}
	wg.Wait()
	if forced.Load() {
		select {} // the third signal's handler exits, once the targets' runs have
	}
	m := matrix.Build(inputs, started, time.Now(), version)
	if err := matrix.Write(p.dir, m); err != nil {
		return usageError("cannot write the matrix: %v", err)
	}
	fmt.Fprintln(out)
	for _, t := range m.Targets {
		line := fmt.Sprintf("%-20s %s", t.Name, t.State)
		if t.Result != "" {
			var profiles []string
			for _, pr := range t.Profiles {
				profiles = append(profiles, pr.Name+" "+string(pr.Result))
			}
			line += fmt.Sprintf(" conformance %s (%s)", t.Result, strings.Join(profiles, ", "))
		}
		if t.Regressions > 0 {
			line += fmt.Sprintf(", %d regressed", t.Regressions)
		}
		if t.Error != "" {
			line += ": " + t.Error
		}
		fmt.Fprintln(out, line)
	}
	fmt.Fprintf(out, "matrix in %s: %s, %s (took %s)\n", p.dir, matrix.JSONName, matrix.HTMLName, time.Since(started).Round(time.Second))
	if s := sig.received(); s != nil {
		var ended []string
		for _, t := range m.Targets {
			ended = append(ended, fmt.Sprintf("%s exit %d", t.Name, t.ExitCode))
		}
		code := exitFailed
		if m.ExitCode == matrix.ExitError {
			code = exitUsage
		}
		return &exitError{code: code, err: fmt.Errorf("interrupted by %s: every target's run stopped (%s); the matrix so far is in %s",
			signalName(s), strings.Join(ended, ", "), filepath.Join(p.dir, matrix.HTMLName))}
	}
	var failed, broken []string
	for _, t := range m.Targets {
		switch t.State {
		case matrix.Failed:
			failed = append(failed, t.Name)
		case matrix.Error:
			broken = append(broken, t.Name)
		}
	}
	switch m.ExitCode {
	case matrix.ExitPassed:
		return nil
	case matrix.ExitFailed:
		return &exitError{code: exitFailed, err: fmt.Errorf("target(s) %s failed spec cases (see %s)", strings.Join(failed, ", "), filepath.Join(p.dir, matrix.HTMLName))}
	default:
		return usageError("target(s) %s could not be run (see %s)", strings.Join(broken, ", "), filepath.Join(p.dir, matrix.HTMLName))
	}
}

// keepPrevious moves the matrix dir's previous run (matrix.json,
// matrix.html, its targets' report dirs) into previous/, replacing the
// one before, and returns its targets.
func (p *matrixPlan) keepPrevious() (map[string]bool, error) {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, err
	}
	old, err := matrix.Read(filepath.Join(p.dir, matrix.JSONName))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	prev := filepath.Join(p.dir, "previous")
	if err := os.RemoveAll(prev); err != nil {
		return nil, err
	}
	if err := os.Mkdir(prev, 0o755); err != nil {
		return nil, err
	}
	targets := map[string]bool{}
	for _, f := range []string{matrix.JSONName, matrix.HTMLName} {
		if err := os.Rename(filepath.Join(p.dir, f), filepath.Join(prev, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	for _, t := range old.Targets {
		if t.ReportDir == "" || t.ReportDir != filepath.Base(t.ReportDir) || t.ReportDir == "previous" {
			continue
		}
		if err := os.Rename(filepath.Join(p.dir, t.ReportDir), filepath.Join(prev, t.ReportDir)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		targets[t.Name] = true
	}
	return targets, nil
}

// runTarget runs one target's `run --in-cluster` as a child process, its
// output prefixed with the target's name here and kept in client.log in
// its report dir. It returns the exit code and the error line.
func (p *matrixPlan) runTarget(out io.Writer, mu *sync.Mutex, children map[*exec.Cmd]bool, exe string, t plannedTarget) (int, string) {
	dir := t.options.ReportDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return exitUsage, err.Error()
	}
	data, err := yaml.Marshal(t.options)
	if err != nil {
		return exitUsage, err.Error()
	}
	optionsFile := filepath.Join(dir, "options.yaml")
	if err := os.WriteFile(optionsFile, data, 0o644); err != nil {
		return exitUsage, err.Error()
	}
	logFile, err := os.Create(filepath.Join(dir, "client.log"))
	if err != nil {
		return exitUsage, err.Error()
	}
	defer logFile.Close()
	cmd := exec.Command(exe, "run", "--options", optionsFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	mu.Lock()
	err = cmd.Start()
	if err == nil {
		children[cmd] = true
	}
	mu.Unlock()
	if err != nil {
		return exitUsage, err.Error()
	}
	var lastError string
	var copying sync.WaitGroup
	copyLines := func(r io.Reader, isErr bool) {
		defer copying.Done()
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				line = strings.TrimRight(line, "\r\n")
				mu.Lock()
				fmt.Fprintf(out, "[%s] %s\n", t.name, line)
				fmt.Fprintln(logFile, line)
				if isErr && strings.HasPrefix(line, "run-conformance: ") {
					lastError = strings.TrimPrefix(line, "run-conformance: ")
				}
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}
	copying.Add(2)
	go copyLines(stdout, false)
	go copyLines(stderr, true)
	copying.Wait()
	err = cmd.Wait()
	mu.Lock()
	delete(children, cmd)
	mu.Unlock()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if code < 0 {
			code, lastError = exitUsage, "the target's run was killed: "+ee.String()
		}
	case err != nil:
		code, lastError = exitUsage, err.Error()
	}
	if code == exitPassed {
		lastError = ""
	}
	return code, lastError
}
