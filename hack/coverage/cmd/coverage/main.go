// Command coverage measures which statements of the pinned admission code
// a full default run executes (make coverage): it builds run-conformance
// with Go's binary coverage over coverage.Packages, runs the full default
// selection with GOCOVERDIR set (every process of the run writes its
// counters: the cluster, workers, propagation planes, hollow nodes), prints
// statement coverage per package, and writes beside the run's reports:
//
//	coverage.out       the merged text profile
//	coverage.html      go tool cover's HTML view of it
//	codecoverage.json  per package, and every uncovered block with its decision
//	results.json       gains codeCoverage, so `compare` shows it between runs
//
// and the kept snapshot hack/coverage/uncovered.txt, whose every block
// hack/coverage/decisions.yaml must decide (a unit test checks it).
// With --attribution it also runs the selection serially, the cluster
// writing its counters after each case, and writes attribution.json (which
// spec ran which block), which the generated mutants need.
//
// Exit codes: 0 measured and every uncovered block decided, 1 measured with
// undecided blocks (listed), 2 bad input or a build or run that could not
// be made.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/hack/coverage"
	"github.com/admission-conformance/admission-conformance/internal/runner"
)

type options struct {
	repo, out, bin, snapshot, decisions string
	build, attribution, runDefault      bool
	runFlags                            []string
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "coverage:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coverage:", err)
	}
	os.Exit(code)
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("coverage", flag.ContinueOnError)
	var o options
	var runFlags string
	fs.StringVar(&o.repo, "repo", ".", "the harness checkout")
	fs.StringVar(&o.out, "out", "_artifacts/coverage", "report dir of the coverage run")
	fs.StringVar(&o.bin, "bin", "_output/coverage/run-conformance", "where the coverage build goes")
	fs.StringVar(&o.snapshot, "snapshot", "hack/coverage/uncovered.txt", "the kept snapshot of uncovered blocks to write (empty: none)")
	fs.StringVar(&o.decisions, "decisions", "hack/coverage/decisions.yaml", "the decisions table")
	fs.BoolVar(&o.build, "build", true, "build the coverage binary first")
	fs.BoolVar(&o.runDefault, "run", true, "run the full default selection (false: reuse OUT's counters)")
	fs.BoolVar(&o.attribution, "attribution", false, "also run serially and attribute each block to the specs that ran it")
	fs.StringVar(&runFlags, "run-flags", "", "extra flags for each run, space-separated")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	o.runFlags = strings.Fields(runFlags)
	repo, err := filepath.Abs(o.repo)
	if err != nil {
		return o, err
	}
	o.repo = repo
	for _, p := range []*string{&o.out, &o.bin, &o.snapshot, &o.decisions} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(repo, *p)
		}
	}
	return o, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s coverage: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o options) (int, error) {
	decisions, err := coverage.LoadDecisions(o.decisions)
	if err != nil {
		return 2, err
	}
	if o.build {
		logf("building %s with coverage of %d package patterns (a cold build takes minutes)", o.bin, len(coverage.Packages))
		start := time.Now()
		if err := command(ctx, o.repo, nil, io.Discard, "go", "build", "-cover", "-covermode=atomic",
			"-coverpkg="+coverage.CoverPkg(), "-o", o.bin, "./cmd/run-conformance"); err != nil {
			return 2, err
		}
		logf("built in %s", time.Since(start).Round(time.Second))
	}
	runDir := filepath.Join(o.out, "covdata", "run")
	if o.runDefault {
		if err := freshDir(runDir); err != nil {
			return 2, err
		}
		logf("full default run with GOCOVERDIR=%s (reports in %s)", runDir, o.out)
		code, err := runHarness(ctx, o, o.out, []string{"GOCOVERDIR=" + runDir})
		if err != nil {
			return 2, err
		}
		if code == 1 {
			logf("the coverage run had failed cases (coverage builds are slower): see %s", filepath.Join(o.out, "run.log"))
		}
	}
	profile, err := profileOf(ctx, o.repo, runDir, filepath.Join(o.out, "coverage.out"))
	if err != nil {
		return 2, err
	}
	dirs, versions, err := sourceDirs(o.repo)
	if err != nil {
		return 2, err
	}
	if err := coverage.NameFunctions(profile.Blocks, dirs); err != nil {
		return 2, err
	}
	if err := command(ctx, o.repo, nil, io.Discard, "go", "tool", "cover",
		"-html="+filepath.Join(o.out, "coverage.out"), "-o", filepath.Join(o.out, "coverage.html")); err != nil {
		return 2, err
	}

	uncovered := profile.Uncovered()
	tallies, undecided, _ := decisions.Apply(uncovered)
	pkgs, total := profile.Stats()
	cc := codeCoverage(pkgs, total, versions, tallies)
	if err := addToResults(o.out, cc); err != nil {
		return 2, err
	}
	if err := writeDetail(filepath.Join(o.out, "codecoverage.json"), cc, uncovered, decisions); err != nil {
		return 2, err
	}
	if o.snapshot != "" {
		if err := writeSnapshot(o.snapshot, coverage.Snapshot{Modules: versions, Blocks: uncovered}); err != nil {
			return 2, err
		}
		logf("wrote the snapshot of %d uncovered blocks to %s", len(uncovered), o.snapshot)
	}
	if o.attribution {
		if err := attribute(ctx, o); err != nil {
			return 2, err
		}
	}
	printTable(os.Stdout, pkgs, total, tallies)
	if len(undecided) > 0 {
		printUndecided(os.Stdout, undecided)
		return 1, nil
	}
	return 0, nil
}

// runHarness runs the coverage binary's `run` into dir; exit codes 0 and 1
// are runs (1: cases failed), anything else an error.
func runHarness(ctx context.Context, o options, dir string, env []string, extra ...string) (int, error) {
	args := append([]string{"run", "--report-dir", dir}, extra...)
	args = append(args, o.runFlags...)
	err := command(ctx, o.repo, env, os.Stderr, o.bin, args...)
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return 1, nil
	}
	return 2, err
}

// attribute runs the selection serially with per-case counters and writes
// attribution.json.
func attribute(ctx context.Context, o options) error {
	serial := filepath.Join(o.out, "serial")
	cases := filepath.Join(o.out, "covdata", "cases")
	procs := filepath.Join(o.out, "covdata", "serial")
	for _, d := range []string{cases, procs} {
		if err := freshDir(d); err != nil {
			return err
		}
	}
	logf("serial run attributing blocks to specs (reports in %s)", serial)
	if _, err := runHarness(ctx, o, serial, []string{"GOCOVERDIR=" + procs, runner.CoverCasesEnv + "=" + cases}, "--parallel", "1"); err != nil {
		return err
	}
	entries, err := os.ReadDir(cases)
	if err != nil {
		return err
	}
	bySpec := map[string]coverage.Profile{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p, err := profileOf(ctx, o.repo, filepath.Join(cases, e.Name()), filepath.Join(cases, e.Name()+".out"))
		if err != nil {
			return err
		}
		bySpec[e.Name()] = p
	}
	a := coverage.NewAttribution(bySpec)
	logf("attributed %d blocks to %d specs", len(a.Blocks), len(a.Specs))
	return coverage.WriteAttribution(filepath.Join(o.out, "attribution.json"), a)
}

// profileOf merges the counters in dir into a text profile and reads it.
func profileOf(ctx context.Context, repo, dir, out string) (coverage.Profile, error) {
	if err := command(ctx, repo, nil, io.Discard, "go", "tool", "covdata", "textfmt", "-i", dir, "-o", out); err != nil {
		return coverage.Profile{}, err
	}
	return coverage.ReadProfile(out)
}

// sourceDirs asks the go command where the measured modules' sources are.
func sourceDirs(repo string) (coverage.SourceDirs, map[string]string, error) {
	cmd := exec.Command("go", append([]string{"list", "-m", "-json"}, coverage.Modules...)...)
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list -m: %w", err)
	}
	dirs, versions := coverage.SourceDirs{}, map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var m struct {
			Path, Version, Dir string
			Replace            *struct{ Version, Dir string }
		}
		if err := dec.Decode(&m); err != nil {
			return nil, nil, err
		}
		if m.Replace != nil {
			m.Version, m.Dir = m.Replace.Version, m.Replace.Dir
		}
		dirs[m.Path], versions[m.Path] = m.Dir, m.Version
	}
	return dirs, versions, nil
}

func codeCoverage(pkgs []coverage.PackageStats, total coverage.PackageStats, versions map[string]string, tallies []coverage.Tally) *results.CodeCoverage {
	cc := &results.CodeCoverage{Modules: versions, Total: results.PackageCoverage(total), Uncovered: map[string]int{}}
	for _, p := range pkgs {
		cc.Packages = append(cc.Packages, results.PackageCoverage(p))
	}
	for _, t := range tallies {
		cc.Uncovered[string(coverage.OutOfScope)] += t.OutOfScope
		cc.Uncovered[string(coverage.Unreachable)] += t.Unreachable
		cc.Uncovered[string(coverage.Spec)] += t.Spec
		cc.Uncovered["undecided"] += t.Undecided
	}
	return cc
}

func addToResults(dir string, cc *results.CodeCoverage) error {
	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		return fmt.Errorf("the coverage run's results: %w", err)
	}
	res.CodeCoverage = cc
	_, err = results.Write(dir, res)
	return err
}

// writeDetail writes the numbers and every uncovered block with its
// decision.
func writeDetail(file string, cc *results.CodeCoverage, uncovered []coverage.Block, ds coverage.Decisions) error {
	type block struct {
		coverage.Block
		Decision string `json:"decision"`
		Reason   string `json:"reason,omitempty"`
	}
	detail := struct {
		*results.CodeCoverage
		Blocks []block `json:"uncoveredBlocks"`
	}{CodeCoverage: cc}
	for _, b := range uncovered {
		d := block{Block: b, Decision: "undecided"}
		if i := ds.Decide(b); i >= 0 {
			d.Decision, d.Reason = string(ds[i].Decision), ds[i].Reason
		}
		detail.Blocks = append(detail.Blocks, d)
	}
	data, err := json.MarshalIndent(detail, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

func writeSnapshot(file string, s coverage.Snapshot) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := coverage.WriteSnapshot(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func printTable(w io.Writer, pkgs []coverage.PackageStats, total coverage.PackageStats, tallies []coverage.Tally) {
	byPkg := map[string]coverage.Tally{}
	for _, t := range tallies {
		byPkg[t.Package] = t
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "statements\tcovered\t%\tout of scope\tunreachable\tspec elsewhere\tundecided\tpackage\t")
	for _, p := range pkgs {
		t := byPkg[p.Package]
		fmt.Fprintf(tw, "%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t%s\t\n", p.Statements, p.Covered, p.Percent(), t.OutOfScope, t.Unreachable, t.Spec, t.Undecided, p.Package)
	}
	var all coverage.Tally
	for _, t := range tallies {
		all.OutOfScope += t.OutOfScope
		all.Unreachable += t.Unreachable
		all.Spec += t.Spec
		all.Undecided += t.Undecided
	}
	fmt.Fprintf(tw, "%d\t%d\t%.1f\t%d\t%d\t%d\t%d\t%s\t\n", total.Statements, total.Covered, total.Percent(), all.OutOfScope, all.Unreachable, all.Spec, all.Undecided, "all")
	tw.Flush()
}

func printUndecided(w io.Writer, blocks []coverage.Block) {
	type fn struct{ pkg, fn string }
	stmts := map[fn]int{}
	for _, b := range blocks {
		stmts[fn{b.Package(), b.Func}] += b.Statements
	}
	keys := make([]fn, 0, len(stmts))
	for k := range stmts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pkg != keys[j].pkg {
			return keys[i].pkg < keys[j].pkg
		}
		return keys[i].fn < keys[j].fn
	})
	fmt.Fprintf(w, "\n%d uncovered blocks are undecided (decide them in hack/coverage/decisions.yaml):\n", len(blocks))
	for _, k := range keys {
		fmt.Fprintf(w, "  %s %s (%d statements)\n", k.pkg, k.fn, stmts[k])
	}
}

func freshDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// command runs name in dir, its stdout to out and its stderr kept for the
// error.
func command(ctx context.Context, dir string, env []string, out io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	var stderr strings.Builder
	cmd.Stdout = out
	if out == os.Stderr {
		cmd.Stderr = out
	} else {
		cmd.Stderr = &stderr
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, lastLines(stderr.String(), 20))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
