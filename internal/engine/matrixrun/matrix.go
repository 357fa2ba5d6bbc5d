// Package matrixrun runs the conformance specs in several clusters at once
// (`matrix`): each target's run is `run --in-cluster` in a child process
// with its own options file, and the matrix aggregates their results into
// matrix.json and matrix.html (internal/report/matrix).
package matrixrun

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/provider/kind"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
	matrixreport "github.com/admission-conformance/admission-conformance/internal/report/matrix"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
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
	Name       string      `json:"name"`
	Kubeconfig string      `json:"kubeconfig,omitempty"`
	Context    string      `json:"context,omitempty"`
	Image      string      `json:"image,omitempty"`
	Kind       *kindTarget `json:"kind,omitempty"`
	// SupportedFeatures are claimed for this target on top of run's.
	SupportedFeatures []string `json:"supportedFeatures,omitempty"`
	// NodeAdmissionNodes are an existing cluster's nodes with real
	// kubelets (run's --node-admission-nodes); a kind target knows its own.
	NodeAdmissionNodes []string `json:"nodeAdmissionNodes,omitempty"`
}

// kindTarget is a kind cluster to create for a target.
type kindTarget struct {
	Topology     string `json:"topology,omitempty"`
	NodeImage    string `json:"nodeImage,omitempty"`
	Cluster      string `json:"cluster,omitempty"`
	ImageArchive string `json:"imageArchive,omitempty"`
}

// matrixOwned are the run options each target sets itself.
var matrixOwned = []string{"provider", "kubeconfig", "context", "reportDir", "inCluster", "image", "imageArchive", "kind",
	"webhookHost", "pluginImage", "history", "apiservers", "apiserverArgs", "etcdDelays", "nodes", "nodeAdmissionNodes"}

// DefaultDir is the matrix dir unless --dir or the file says otherwise.
const DefaultDir = "_matrix"

// Options are `matrix`'s flags.
type Options struct {
	File     string
	Dir      string
	Parallel int
	Image    string
	Options  string
	Targets  []string
	// NoCeilings skips checking what runs at once against this machine
	// (ceilings.go).
	NoCeilings bool
}

// Plan is a validated matrix: what each target runs.
type Plan struct {
	dir      string
	parallel int
	targets  []plannedTarget
	// hostWorkers is each kind target's spec workers, when the matrix
	// chose them (shareHostWorkers); 0 otherwise.
	hostWorkers int
}

type plannedTarget struct {
	name, description string
	options           runconfig.Config
}

// Load reads the matrix file and flags and validates everything, every
// target's run included, before anything starts.
func (o Options) Load(dirGiven, parallelGiven, imageGiven bool) (*Plan, error) {
	var f matrixFile
	if o.File != "" {
		data, err := os.ReadFile(o.File)
		if err != nil {
			return nil, exitcode.Usagef("cannot read matrix file: %v", err)
		}
		if err := yaml.UnmarshalStrict(data, &f); err != nil {
			return nil, exitcode.Usagef("matrix file %s: %v", o.File, exitcode.OneLine(err.Error()))
		}
		if f.Kind != "" && f.Kind != "Matrix" {
			return nil, exitcode.Usagef("matrix file %s: kind %q, want Matrix", o.File, f.Kind)
		}
	}
	if f.Dir == "" || dirGiven {
		f.Dir = o.Dir
	}
	if f.Parallel == 0 || parallelGiven {
		f.Parallel = o.Parallel
	}
	if f.Image == "" || imageGiven {
		f.Image = o.Image
	}
	for _, spec := range o.Targets {
		t, err := parseTarget(spec)
		if err != nil {
			return nil, err
		}
		f.Targets = append(f.Targets, t)
	}
	if len(f.Targets) == 0 {
		return nil, exitcode.Usagef("no target: give -f matrix.yaml or --target (see 'run-conformance matrix --help')")
	}
	if f.Parallel < 1 {
		return nil, exitcode.Usagef("--parallel must be at least 1, got %d", f.Parallel)
	}
	if err := check.OutputDir("--dir", f.Dir); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(f.Dir)
	if err != nil {
		return nil, exitcode.Usagef("--dir: %v", err)
	}
	base := runconfig.Default()
	if o.Options != "" {
		data, err := os.ReadFile(o.Options)
		if err != nil {
			return nil, exitcode.Usagef("cannot read options file: %v", err)
		}
		if f.Run, err = yaml.YAMLToJSON(data); err != nil {
			return nil, exitcode.Usagef("options file %s: %v", o.Options, err)
		}
	}
	if len(f.Run) > 0 && string(f.Run) != "null" {
		var keys map[string]any
		if err := json.Unmarshal(f.Run, &keys); err != nil {
			return nil, exitcode.Usagef("run options: %v", err)
		}
		for _, k := range matrixOwned {
			if _, ok := keys[k]; ok {
				return nil, exitcode.Usagef("run options: %s is the target's own (set it per target, or not at all)", k)
			}
		}
		if base, err = runconfig.Decode(f.Run); err != nil {
			return nil, exitcode.Usagef("run options: %v", err)
		}
	}
	previous, err := previousTargets(dir)
	if err != nil {
		return nil, err
	}
	noCeilings := o.NoCeilings || base.NoCeilings
	base.NoCeilings = noCeilings
	plan := &Plan{dir: dir, parallel: f.Parallel}
	seen := map[string]bool{}
	for _, t := range f.Targets {
		if errs := validation.IsDNS1123Label(t.Name); len(errs) > 0 || len(t.Name) > 40 || t.Name == "previous" {
			return nil, exitcode.Usagef("target name %q: use up to 40 lower-case letters, digits and '-' (not 'previous'): it names the target's report dir", t.Name)
		}
		if seen[t.Name] {
			return nil, exitcode.Usagef("target %s is listed twice", t.Name)
		}
		seen[t.Name] = true
		if info, err := os.Stat(filepath.Join(dir, t.Name)); err == nil && !previous[t.Name] {
			entries, _ := os.ReadDir(filepath.Join(dir, t.Name))
			if !info.IsDir() || len(entries) > 0 {
				return nil, exitcode.Usagef("target %s: %s holds files no matrix run wrote: move them away or choose another --dir", t.Name, filepath.Join(dir, t.Name))
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
func shareHostWorkers(plan *Plan, parallel int) {
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
			plan.targets[i].options.Parallel = max(1, runconfig.DefaultWorkers()/atOnce)
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
			return t, exitcode.Usagef("--target %q: %q is not key=value (name=N,kubeconfig=PATH[,context=C][,image=REF] or name=N,kind=TOPOLOGY[,node-image=IMAGE])", spec, kv)
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
				t.Kind = &kindTarget{}
			}
			if k == "kind" {
				t.Kind.Topology = v
			} else {
				t.Kind.NodeImage = v
			}
		default:
			return t, exitcode.Usagef("--target %q: unknown key %q (name, kubeconfig, context, image, kind, node-image)", spec, k)
		}
	}
	return t, nil
}

// planTarget is the run options of one target, validated as `run`
// validates its own.
func planTarget(t matrixTarget, base runconfig.Config, image, reportDir string) (plannedTarget, error) {
	o := base
	o.Suites, o.Profiles, o.Focus, o.Skip = slicesClone(base.Suites), slicesClone(base.Profiles), slicesClone(base.Focus), slicesClone(base.Skip)
	o.SupportedFeatures = append(slicesClone(base.SupportedFeatures), t.SupportedFeatures...)
	o.InCluster, o.ReportDir = true, reportDir
	p := plannedTarget{name: t.Name}
	switch {
	case t.Kubeconfig != "" && t.Kind != nil:
		return p, exitcode.Usagef("target %s: give kubeconfig or kind, not both", t.Name)
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
			return p, exitcode.Usagef("target %s: context and nodeAdmissionNodes go with kubeconfig", t.Name)
		}
		o.Provider, o.Image, o.ImageArchive = kind.Name, t.Image, t.Kind.ImageArchive
		o.Kind = runconfig.KindOptions{Topology: t.Kind.Topology, Image: t.Kind.NodeImage, Cluster: t.Kind.Cluster}
		if o.Kind.Topology == "" {
			o.Kind.Topology = string(kind.Single)
		}
		p.description = "kind " + o.Kind.Topology
		if o.Kind.Image != "" {
			p.description += ", node image " + o.Kind.Image
		}
	default:
		return p, exitcode.Usagef("target %s: give kubeconfig (an existing cluster) or kind (a cluster to create)", t.Name)
	}
	if err := o.Validate(); err != nil {
		var ee *exitcode.Error
		if errors.As(err, &ee) {
			return p, exitcode.Usagef("target %s: %v", t.Name, ee.Err)
		}
		return p, exitcode.Usagef("target %s: %v", t.Name, err)
	}
	p.options = o
	return p, nil
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// previousTargets are the targets of the matrix run in dir, if any (their
// report dirs are the run's, not the user's).
func previousTargets(dir string) (map[string]bool, error) {
	out := map[string]bool{}
	m, err := matrixreport.Read(filepath.Join(dir, matrixreport.JSONName))
	if errors.Is(err, os.ErrNotExist) {
		if info, err := os.Stat(filepath.Join(dir, "previous")); err == nil && info.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, "previous", matrixreport.JSONName)); err != nil {
				return nil, exitcode.Usagef("--dir %s: previous/ holds no matrix run: move it away or choose another --dir", dir)
			}
		}
		return out, nil
	}
	if err != nil {
		return nil, exitcode.Usagef("--dir %s: %v", dir, err)
	}
	for _, t := range m.Targets {
		out[t.Name] = true
	}
	return out, nil
}
