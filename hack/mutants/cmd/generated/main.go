// Command generated runs the mutation kit's generated mutants (make
// mutation-generated): from a coverage run's artifacts (make coverage with
// attribution: coverage.out and attribution.json) it finds every site on a
// covered statement of the pinned admission code (hack/mutants/generate),
// draws a seeded sample, compiles all of it into one build of the harness
// (mutant schemata), runs the unmodified behaviour once as a baseline, then
// each mutant with only the specs that cover its statement, and writes the
// verdicts, the score and the table of survivors (hack/mutants/generated/).
//
// Exit codes: 0 every sampled mutant killed or recorded as equivalent
// (hack/mutants/generated/equivalent.yaml), 1 a survivor is neither, or a
// mutant has no verdict, 2 bad input or a broken set-up.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/hack/coverage"
	"github.com/admission-conformance/admission-conformance/hack/mutants"
	"github.com/admission-conformance/admission-conformance/hack/mutants/generate"
	"github.com/admission-conformance/admission-conformance/internal/contract/release"
)

type options struct {
	repo, coverageDir, workDir, out, lock string
	sample                                int
	seed                                  int64
	only                                  map[int]bool
	timeout                               time.Duration
	list, baseline, resume, redraw        bool
	skipSpecs                             map[string]bool
	tableOnly                             bool
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "generated:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "generated:", err)
	}
	os.Exit(code)
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("generated", flag.ContinueOnError)
	var o options
	var only string
	cache, _ := os.UserCacheDir()
	fs.StringVar(&o.repo, "repo", ".", "the harness checkout")
	fs.StringVar(&o.coverageDir, "coverage", "_artifacts/coverage", "the coverage run's artifacts (make coverage COVERAGE_ATTRIBUTION=1)")
	fs.StringVar(&o.workDir, "workdir", filepath.Join(cache, "admission-conformance", "mutation-generated"), "reused work dir (module copies, build, reports)")
	fs.StringVar(&o.out, "out", "hack/mutants/generated", "where the verdicts, the table and equivalent.yaml are kept")
	fs.IntVar(&o.sample, "sample", 250, "how many mutants to draw")
	fs.Int64Var(&o.seed, "seed", 1, "the sample's random seed")
	fs.StringVar(&only, "only", "", "comma-separated mutant numbers of the sample to run (default all); their verdicts replace the kept ones")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "limit for one mutant's run")
	fs.BoolVar(&o.list, "list", false, "only draw the sample and print it")
	fs.BoolVar(&o.tableOnly, "table", false, "only write the table again from the kept verdicts and equivalent.yaml (no build, no run)")
	fs.StringVar(&o.lock, "lock", "", "a file to hold with flock during each run, so other timing-sensitive runs that take it never overlap")
	var skip string
	fs.StringVar(&skip, "skip-specs", "", "comma-separated specs left out of every selection, as if the suite had not them (the score before they were written)")
	fs.BoolVar(&o.resume, "resume", false, "run only the mutants of the kept sample without a verdict yet")
	fs.BoolVar(&o.redraw, "redraw", false, "draw a new sample even if a kept one exists for this seed and these modules (its verdicts are dropped)")
	fs.BoolVar(&o.baseline, "baseline", true, "first run every selected spec without a mutant; specs failing there count for no mutant")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	if o.sample <= 0 || o.timeout <= 0 {
		return o, errors.New("--sample and --timeout must be positive")
	}
	for _, s := range strings.Split(skip, ",") {
		if s = strings.TrimSpace(s); s != "" {
			if o.skipSpecs == nil {
				o.skipSpecs = map[string]bool{}
			}
			o.skipSpecs[s] = true
		}
	}
	for _, s := range strings.Split(only, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return o, fmt.Errorf("--only takes mutant numbers, got %q", s)
		}
		if o.only == nil {
			o.only = map[int]bool{}
		}
		o.only[n] = true
	}
	repo, err := filepath.Abs(o.repo)
	if err != nil {
		return o, err
	}
	o.repo = repo
	for _, p := range []*string{&o.coverageDir, &o.out} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(repo, *p)
		}
	}
	return o, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s generated: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o options) (int, error) {
	if o.tableOnly {
		return retable(o)
	}
	profile, err := coverage.ReadProfile(filepath.Join(o.coverageDir, "coverage.out"))
	if err != nil {
		return 2, fmt.Errorf("%w (run make coverage COVERAGE_ATTRIBUTION=1 first)", err)
	}
	attribution, err := coverage.ReadAttribution(filepath.Join(o.coverageDir, "attribution.json"))
	if err != nil {
		return 2, fmt.Errorf("%w (run make coverage COVERAGE_ATTRIBUTION=1 first)", err)
	}
	covered := generate.Covered{}
	for _, b := range profile.Blocks {
		if b.Count > 0 {
			covered[b.File] = append(covered[b.File], generate.Block{StartLine: b.StartLine, StartCol: b.StartCol, EndLine: b.EndLine, EndCol: b.EndCol})
		}
	}
	logf("finding sites on the covered statements of %d files", len(covered))
	sites, files, err := generate.Sites(o.repo, coverage.Packages, covered)
	if err != nil {
		return 2, err
	}
	sites, left := inScope(sites, files)
	for plugin, n := range left {
		logf("left out %d site(s) of plugin %s: the release table decides it out of scope", n, plugin)
	}
	candidates := map[generate.Operator]int{}
	for _, s := range sites {
		candidates[s.Operator]++
	}
	prior, err := keptSample(o)
	if err != nil {
		return 2, err
	}
	var sampled []generate.Site
	if prior != nil {
		if sampled, err = generate.KeptSample(prior.Sample, sites); err != nil {
			return 2, fmt.Errorf("%w: the coverage run differs from the one the sample was drawn on; run make coverage again, or draw anew with --redraw", err)
		}
		logf("%d candidate sites %v; running the kept sample of %d (seed %d, drawn from %v)", len(sites), candidates, len(sampled), o.seed, prior.Candidates)
		candidates = prior.Candidates
	} else {
		logf("%d candidate sites %v; drawing %d (seed %d)", len(sites), candidates, o.sample, o.seed)
		sampled = generate.Sample(sites, o.sample, o.seed)
	}
	ms := make([]generate.Mutant, len(sampled))
	for i, s := range sampled {
		ms[i] = generate.Mutant{ID: i + 1, Site: s, Package: files[s.File].Package}
	}
	if o.list {
		for _, m := range ms {
			fmt.Printf("%d\t%s\t%s\t%s -> %s\n", m.ID, m.Key(), m.Func, m.Original, m.Mutated)
		}
		return 0, nil
	}

	w, err := mutants.OpenWorkDir(o.workDir, o.repo, logf)
	if err != nil {
		return 2, err
	}
	defer w.Close()
	defer func() {
		if err := w.Restore(); err != nil {
			logf("restore: %v", err)
		}
	}()
	ms, err = buildSchemata(ctx, w, ms, files)
	if err != nil {
		return 2, err
	}
	nodeSpecs, err := specsNeedingNodes(w.Binary())
	if err != nil {
		return 2, err
	}
	for i := range ms {
		ms[i].Specs, ms[i].Why = selection(ms[i], profile, attribution, nodeSpecs)
	}

	flaky := map[string]bool{}
	if o.baseline {
		var err error
		if flaky, err = baseline(ctx, w, ms, o); err != nil {
			return 2, err
		}
	}
	for s := range o.skipSpecs {
		flaky[s] = true
	}
	for i := range ms {
		ms[i].Specs = without(ms[i].Specs, flaky)
	}
	equivalent, err := generate.ReadEquivalent(filepath.Join(o.out, "equivalent.yaml"))
	if err != nil {
		return 2, err
	}
	harnessTests, err := generate.ReadHarnessTests(filepath.Join(o.out, "harness-tests.yaml"))
	if err != nil {
		return 2, err
	}
	kept := generate.Kept{Modules: moduleVersions(o.repo), Seed: o.seed, Candidates: candidates, OutOfScope: left}
	for _, s := range sampled {
		kept.Sample = append(kept.Sample, s.Key())
	}
	if prior != nil && (o.only != nil || o.resume) {
		// A partial run updates the kept verdicts of the mutants it ran.
		kept.Verdicts = prior.Verdicts
	}
	judged := map[int]bool{}
	if o.resume {
		for _, v := range kept.Verdicts {
			judged[v.ID] = true
		}
	}
	started := time.Now()
	ran := 0
	for _, m := range ms {
		if ctx.Err() != nil {
			break
		}
		if (o.only != nil && !o.only[m.ID]) || judged[m.ID] {
			continue
		}
		ran++
		v := judge(ctx, w, m, flaky, o.timeout, o.lock)
		if t, ok := harnessTests[m.Key()]; ok && v.Outcome == generate.Survived {
			v = byHarnessTest(ctx, w, v, t, o.lock)
		}
		if v.Outcome == generate.Survived {
			if _, ok := equivalent[m.Key()]; ok {
				v.Outcome = generate.Equivalent
			}
		}
		kept.Verdicts = upsert(kept.Verdicts, v)
		logf("[%d/%d] #%d %s %s: %s %s (%.0fs)", ran, selectedCount(ms, o.only)-len(judged), m.ID, m.Operator, m.Key(), v.Outcome, strings.Join(v.Killers, ","), v.RunSeconds)
		if err := writeOut(o.out, kept, equivalent); err != nil {
			return 2, err
		}
	}
	killed, total := kept.Score()
	logf("%d mutants run in %s; score %d/%d", ran, time.Since(started).Round(time.Second), killed, total)
	if ctx.Err() != nil {
		return 2, errors.New("interrupted")
	}
	open := 0
	for _, v := range kept.Verdicts {
		if v.Outcome == generate.Survived || v.Outcome == generate.NoVerdict {
			open++
		}
	}
	if unjudged := len(ms) - len(kept.Verdicts); unjudged > 0 || open > 0 {
		logf("%d survivor(s) or mutant(s) without a verdict open, %d of the sample not run yet (MUTATION_ARGS=--resume)", open, unjudged)
		return 1, nil
	}
	return 0, nil
}

// inScope leaves out the sites in compiled-in admission plugins the
// release table decides out of scope (RuntimeClass, Priority, ...): the
// suites certify nothing they do, so a mutant there survives whatever the
// suites assert and says nothing of them. It returns how many sites each
// plugin had.
func inScope(sites []generate.Site, files map[string]generate.Source) ([]generate.Site, map[string]int) {
	out := map[string]bool{}
	for _, e := range release.At(release.Table, release.PinnedVersion()) {
		if e.Kind == release.APIServerPlugin && e.OutOfScope != "" {
			out[e.Name] = true
		}
	}
	var kept []generate.Site
	left := map[string]int{}
	for _, s := range sites {
		if p := files[s.File].Plugin; out[p] {
			left[p]++
			continue
		}
		kept = append(kept, s)
	}
	return kept, left
}

// keptSample returns the kept campaign when its sample can be run again:
// same seed, size and modules, and no --redraw; nil when a sample is to be
// drawn.
func keptSample(o options) (*generate.Kept, error) {
	k, err := generate.ReadKept(filepath.Join(o.out, "verdicts.json"))
	if errors.Is(err, os.ErrNotExist) || o.redraw {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	same := k.Seed == o.seed && len(k.Sample) == o.sample
	for m, v := range moduleVersions(o.repo) {
		same = same && k.Modules[m] == v
	}
	if !same {
		if o.resume || o.only != nil {
			return nil, fmt.Errorf("the kept campaign (seed %d, %d mutants, %v) is not this one (seed %d, %d mutants, %v): --only and --resume continue a kept campaign; run without them to draw anew", k.Seed, len(k.Sample), k.Modules, o.seed, o.sample, moduleVersions(o.repo))
		}
		return nil, nil
	}
	return &k, nil
}

func selectedCount(ms []generate.Mutant, only map[int]bool) int {
	if only == nil {
		return len(ms)
	}
	return len(only)
}

func upsert(vs []generate.Verdict, v generate.Verdict) []generate.Verdict {
	for i := range vs {
		if vs[i].ID == v.ID {
			vs[i] = v
			return vs
		}
	}
	vs = append(vs, v)
	sort.Slice(vs, func(i, j int) bool { return vs[i].ID < vs[j].ID })
	return vs
}

func writeOut(dir string, k generate.Kept, equivalent map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := generate.WriteKept(filepath.Join(dir, "verdicts.json"), k); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "table.md"))
	if err != nil {
		return err
	}
	if err := generate.WriteTable(f, k, equivalent); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compileError is a compiler diagnostic's file and line.
var compileError = regexp.MustCompile(`(?m)^([^\s:]+\.go):(\d+):\d+: `)

// buildSchemata writes every mutant into the private module copies and
// builds; a site the compiler refuses (a type the generator could not
// see) is dropped and the build made again.
func buildSchemata(ctx context.Context, w *mutants.WorkDir, ms []generate.Mutant, files map[string]generate.Source) ([]generate.Mutant, error) {
	for attempt := 1; ; attempt++ {
		if err := w.Restore(); err != nil {
			return nil, err
		}
		if err := writeSchemata(w, ms, files); err != nil {
			return nil, err
		}
		logf("building the schemata of %d mutants (attempt %d)", len(ms), attempt)
		took, err := w.Build(ctx)
		if err == nil {
			logf("built in %s", took.Round(time.Second))
			return ms, nil
		}
		if attempt == 6 {
			return nil, err
		}
		bad := map[string]bool{}
		for _, m := range compileError.FindAllStringSubmatch(err.Error(), -1) {
			bad[filepath.Base(m[1])+":"+m[2]] = true
		}
		if len(bad) == 0 {
			return nil, err
		}
		var kept []generate.Mutant
		for _, m := range ms {
			if bad[filepath.Base(m.File)+":"+strconv.Itoa(m.Line)] {
				logf("dropping #%d %s: the compiler refused it", m.ID, m.Key())
				continue
			}
			kept = append(kept, m)
		}
		if len(kept) == len(ms) {
			return nil, fmt.Errorf("the build fails outside the mutated lines: %w", err)
		}
		ms = kept
	}
}

// writeSchemata rewrites every mutated file and adds the switch to every
// mutated package.
func writeSchemata(w *mutants.WorkDir, ms []generate.Mutant, files map[string]generate.Source) error {
	byFile := map[string][]generate.Mutant{}
	for _, m := range ms {
		byFile[m.File] = append(byFile[m.File], m)
	}
	pkgs := map[string]string{}
	for file, fms := range byFile {
		src, err := os.ReadFile(files[file].Path)
		if err != nil {
			return err
		}
		out, err := generate.Rewrite(src, fms)
		if err != nil {
			return err
		}
		mod, rel, err := moduleFile(file)
		if err != nil {
			return err
		}
		if err := w.WriteFile(mod, rel, out); err != nil {
			return err
		}
		pkgs[filepath.Dir(rel)+"\x00"+mod] = files[file].Name
	}
	for key, name := range pkgs {
		dir, mod, _ := strings.Cut(key, "\x00")
		if err := w.WriteFile(mod, filepath.Join(dir, generate.RuntimeFileName), generate.RuntimeFile(name)); err != nil {
			return err
		}
	}
	return nil
}

func moduleFile(file string) (mod, rel string, err error) {
	for _, m := range mutants.Modules {
		if r, ok := strings.CutPrefix(file, m+"/"); ok {
			return m, r, nil
		}
	}
	return "", "", fmt.Errorf("%s is in none of the kit's modules", file)
}

// selection chooses the specs a mutant runs: those the serial coverage run
// saw run its block; node-side code every spec needing a node; a block run
// only by the cluster's start-up (or not attributed) the full selection.
func selection(m generate.Mutant, p coverage.Profile, a coverage.Attribution, nodeSpecs []string) ([]string, string) {
	if coverage.NodeSide(m.Package) {
		return nodeSpecs, "kubelet code: every spec needing a node"
	}
	key := ""
	for _, b := range p.Blocks {
		if b.File == m.File && b.Count > 0 && containsPos(b, m.Line, m.Col) {
			key = b.Key()
			break
		}
	}
	var specs []string
	for _, s := range a.SpecsOf(key) {
		if s != coverage.StartUp {
			specs = append(specs, s)
		}
	}
	if len(specs) == 0 {
		return nil, "run only at start-up or by no one spec: the full selection"
	}
	return specs, "the specs that ran the statement"
}

func containsPos(b coverage.Block, line, col int) bool {
	return (line > b.StartLine || line == b.StartLine && col >= b.StartCol) &&
		(line < b.EndLine || line == b.EndLine && col < b.EndCol)
}

// nodeFeatures are the features of specs that place pods on nodes, where
// the kubelet's admit handlers run.
var nodeFeatures = map[string]bool{
	"NodeAdmission": true, "NodeAdmissionPlugins": true, "NodeDeclaredFeatures": true,
	"Scheduler": true, "ReferenceInitializers": true,
}

// specsNeedingNodes lists the specs whose features include a node.
func specsNeedingNodes(bin string) ([]string, error) {
	out, err := exec.Command(bin, "list", "-o", "json").Output()
	if err != nil {
		return nil, fmt.Errorf("%s list -o json: %w", bin, err)
	}
	var listed []struct {
		ShortName string
		Features  []string
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		return nil, fmt.Errorf("list -o json: %w", err)
	}
	var names []string
	for _, s := range listed {
		for _, f := range s.Features {
			if nodeFeatures[f] {
				names = append(names, s.ShortName)
				break
			}
		}
	}
	if len(names) == 0 {
		return nil, errors.New("list -o json names no spec needing a node: has the feature been renamed?")
	}
	return names, nil
}

// labelFilter selects specs, or with none every spec but those in skip.
func labelFilter(specs []string, skip map[string]bool) string {
	if len(specs) == 0 {
		var parts []string
		for _, s := range keys(skip) {
			parts = append(parts, "!spec:"+s)
		}
		return strings.Join(parts, " && ")
	}
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = "spec:" + s
	}
	return strings.Join(parts, " || ")
}

// without drops the specs in skip; a selection left empty that was not
// empty cannot be run (nil means every spec).
func without(specs []string, skip map[string]bool) []string {
	if len(specs) == 0 {
		return specs
	}
	out := []string{}
	for _, s := range specs {
		if !skip[s] {
			out = append(out, s)
		}
	}
	return out
}

// baseline runs the union of the mutants' specs once without a mutant:
// specs that fail there count for no mutant.
func baseline(ctx context.Context, w *mutants.WorkDir, ms []generate.Mutant, o options) (map[string]bool, error) {
	union := map[string]bool{}
	all := false
	for _, m := range ms {
		if o.only != nil && !o.only[m.ID] {
			continue
		}
		if len(m.Specs) == 0 {
			all = true
		}
		for _, s := range m.Specs {
			union[s] = true
		}
	}
	filter := ""
	if !all {
		var specs []string
		for s := range union {
			specs = append(specs, s)
		}
		sort.Strings(specs)
		filter = labelFilter(specs, nil)
	}
	logf("baseline: the schemata build with no mutant active, %d specs%s", len(union), map[bool]string{true: " (the full selection)"}[all])
	res, err := w.Run(ctx, mutants.RunRequest{Name: "baseline", LabelFilter: filter, Timeout: o.timeout, Lock: o.lock})
	if err != nil {
		return nil, fmt.Errorf("baseline run: %w", err)
	}
	flaky := map[string]bool{}
	for _, s := range res.Specs {
		if s.State == results.Failed {
			flaky[s.ShortName] = true
		}
	}
	if len(flaky) > 0 {
		logf("baseline: %d specs failed without a mutant and count for no mutant: %v", len(flaky), keys(flaky))
	}
	return flaky, nil
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// judge runs one mutant.
func judge(ctx context.Context, w *mutants.WorkDir, m generate.Mutant, flaky map[string]bool, timeout time.Duration, lock string) generate.Verdict {
	if m.Specs != nil && len(m.Specs) == 0 {
		return generate.Verdict{Mutant: m, Outcome: generate.NoVerdict, Detail: "every spec that covers it failed without a mutant (baseline)"}
	}
	start := time.Now()
	res, err := w.Run(ctx, mutants.RunRequest{
		Name: "m" + strconv.Itoa(m.ID), LabelFilter: labelFilter(m.Specs, flaky), Timeout: timeout, FailFast: true, Lock: lock, Ignore: flaky,
		Env: []string{generate.MutantEnv + "=" + strconv.Itoa(m.ID)},
	})
	v := generate.Verdict{Mutant: m, RunSeconds: time.Since(start).Seconds()}
	jv := mutants.Judge(mutants.Mutant{Specs: m.Specs}, res, flaky)
	if jv.Outcome == mutants.Killed && broad(m) {
		// A broad selection (every spec, or every spec on a node) runs
		// many specs that never reach the mutated statement; a timing
		// case among them failing on a busy machine is no kill. The kill
		// must happen again with only its killers.
		again, err := w.Run(ctx, mutants.RunRequest{
			Name: "m" + strconv.Itoa(m.ID) + "-again", LabelFilter: labelFilter(jv.Killers, nil), Timeout: timeout, Lock: lock,
			Env: []string{generate.MutantEnv + "=" + strconv.Itoa(m.ID)},
		})
		v.RunSeconds = time.Since(start).Seconds()
		if ja := mutants.Judge(mutants.Mutant{Specs: jv.Killers}, again, flaky); err != nil || ja.Outcome != mutants.Killed {
			v.Outcome, v.Detail = generate.NoVerdict, fmt.Sprintf("the kill by %s (%s) did not happen again with only its killers", strings.Join(jv.Killers, ","), jv.Detail)
			return v
		}
	}
	switch {
	case jv.Outcome == mutants.Killed:
		v.Outcome, v.Killers, v.Detail = generate.Killed, jv.Killers, jv.Detail
	case err != nil && len(res.Specs) == 0 && startFailed(w, m):
		v.Outcome, v.Detail = generate.KilledAtStart, "the cluster did not start: "+err.Error()
	case err != nil && crashed(w, m) != "":
		// A control-plane component died of a panic in the middle of the
		// run: a kube-apiserver or controller-manager crash-looping on the
		// implementation, which no certification passes.
		v.Outcome, v.Killers, v.Detail = generate.Killed, []string{"(a control-plane component crashed)"}, crashed(w, m)
	case err != nil:
		v.Outcome, v.Detail = generate.NoVerdict, err.Error()
	case jv.Outcome == mutants.Survived:
		v.Outcome, v.Detail = generate.Survived, jv.Detail
	default:
		v.Outcome, v.Detail = generate.NoVerdict, jv.Detail
	}
	return v
}

// byHarnessTest runs the harness test harness-tests.yaml names for a
// survivor on the mutant: a failing test kills it.
func byHarnessTest(ctx context.Context, w *mutants.WorkDir, v generate.Verdict, t generate.HarnessTest, lock string) generate.Verdict {
	failed, _, err := w.Test(ctx, t.Package, t.Test, []string{generate.MutantEnv + "=" + strconv.Itoa(v.ID)}, lock)
	switch {
	case err != nil:
		v.Detail += "; " + err.Error()
	case failed:
		v.Outcome, v.Killers, v.Detail = generate.KilledByTest, []string{t.Test}, t.Why
	default:
		v.Detail += "; " + t.Test + " passed on it too"
	}
	return v
}

// broad reports whether a mutant's run selects specs that did not all run
// its statement: every spec, or every spec needing a node.
func broad(m generate.Mutant) bool {
	return len(m.Specs) == 0 || coverage.NodeSide(m.Package)
}

// startFailed reports whether the mutant's run ended before any case
// because the cluster could not be set up (the run's exit 2 and its log).
func startFailed(w *mutants.WorkDir, m generate.Mutant) bool {
	data, err := os.ReadFile(filepath.Join(w.Reports("m"+strconv.Itoa(m.ID)), "output.log"))
	// The nodes start beside the first cases: a node that cannot be set up
	// ends the run after "running", still before any case could pass.
	return err == nil && len(data) > 0 && (!strings.Contains(string(data), "running ") || strings.Contains(string(data), "cluster set-up failed"))
}

// crashed is the panic a component of the mutant's run died of (from the
// components' log), empty if none.
func crashed(w *mutants.WorkDir, m generate.Mutant) string {
	data, err := os.ReadFile(filepath.Join(w.Reports("m"+strconv.Itoa(m.ID)), "components.log"))
	if err != nil {
		return ""
	}
	if m := panicLine.FindSubmatch(data); m != nil {
		return "a control-plane component panicked: " + string(m[1])
	}
	return ""
}

// panicLine is the log line of a panic that ends a process: the runtime's
// own "panic: ..." at the start of a line.
var panicLine = regexp.MustCompile(`(?m)^panic: (.*)$`)

// moduleVersions are the mutated modules' pinned versions.
func moduleVersions(repo string) map[string]string {
	out := map[string]string{}
	for _, mod := range mutants.Modules {
		cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", mod)
		cmd.Dir = repo
		if v, err := cmd.Output(); err == nil {
			out[mod] = strings.TrimSpace(string(v))
		}
	}
	return out
}

// retable judges the kept verdicts again against equivalent.yaml (a
// survivor it lists is equivalent, an equivalent one it no longer lists
// survived) and writes the table.
func retable(o options) (int, error) {
	kept, err := generate.ReadKept(filepath.Join(o.out, "verdicts.json"))
	if err != nil {
		return 2, err
	}
	equivalent, err := generate.ReadEquivalent(filepath.Join(o.out, "equivalent.yaml"))
	if err != nil {
		return 2, err
	}
	code := 0
	for i, v := range kept.Verdicts {
		_, listed := equivalent[v.Key()]
		switch {
		case v.Outcome == generate.Survived && listed:
			kept.Verdicts[i].Outcome = generate.Equivalent
		case v.Outcome == generate.Equivalent && !listed:
			kept.Verdicts[i].Outcome = generate.Survived
		}
		if o := kept.Verdicts[i].Outcome; o == generate.Survived || o == generate.NoVerdict {
			code = 1
		}
	}
	if err := writeOut(o.out, kept, equivalent); err != nil {
		return 2, err
	}
	killed, total := kept.Score()
	logf("%d verdicts; score %d/%d", len(kept.Verdicts), killed, total)
	return code, nil
}
