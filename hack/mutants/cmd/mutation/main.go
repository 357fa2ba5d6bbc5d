// Command mutation runs the project's mutation kit: for each mutant in
// hack/mutants/*.yaml it builds run-conformance against a private copy of
// the pinned Kubernetes module carrying the mutant's edit, runs the specs
// the mutant names on the embedded cluster, and prints a table of which
// mutants the specs killed. `make mutation` runs it on every mutant.
//
// Exit codes: 0 every non-equivalent mutant killed, 1 a mutant survived or
// got no verdict, 2 bad input or a broken set-up.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/hack/mutants"
)

type options struct {
	repo, dir, workDir, out string
	only                    []string
	timeout                 time.Duration
	lock                    string
	baseline                bool
}

func main() {
	opts, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutation:", err)
	}
	os.Exit(code)
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("mutation", flag.ContinueOnError)
	var o options
	var only string
	cache, _ := os.UserCacheDir()
	fs.StringVar(&o.repo, "repo", ".", "the harness checkout to mutate against")
	fs.StringVar(&o.dir, "mutants", "", "directory of mutant YAML files (default REPO/hack/mutants)")
	fs.StringVar(&o.workDir, "workdir", filepath.Join(cache, "admission-conformance", "mutation"), "reused work dir (module copies, build, reports)")
	fs.StringVar(&o.out, "out", "", "also write the table here (default WORKDIR/table.md)")
	fs.StringVar(&only, "only", "", "comma-separated mutant names (default all)")
	fs.DurationVar(&o.timeout, "timeout", 15*time.Minute, "limit for one mutant's run")
	fs.StringVar(&o.lock, "lock", "", "a file to hold with flock during each run, so other timing-sensitive runs that take it never overlap")
	fs.BoolVar(&o.baseline, "baseline", true, "first run the specs on the unmodified build; specs failing there count for no mutant")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %v: use --only NAME,NAME", fs.Args())
	}
	if o.timeout <= 0 {
		return o, fmt.Errorf("--timeout must be positive, got %v", o.timeout)
	}
	repo, err := filepath.Abs(o.repo)
	if err != nil {
		return o, err
	}
	o.repo = repo
	if o.dir == "" {
		o.dir = filepath.Join(repo, "hack", "mutants")
	}
	if o.out == "" {
		o.out = filepath.Join(o.workDir, "table.md")
	}
	for _, n := range strings.Split(only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			o.only = append(o.only, n)
		}
	}
	return o, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s mutation: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o options) (int, error) {
	all, err := mutants.Load(o.dir)
	if err != nil {
		return 2, err
	}
	selected, err := mutants.Select(all, o.only)
	if err != nil {
		return 2, err
	}
	started := time.Now()
	w, err := mutants.OpenWorkDir(o.workDir, o.repo, logf)
	if err != nil {
		return 2, err
	}
	defer w.Close()
	for _, m := range selected {
		src, err := w.Pristine(m)
		if err != nil {
			return 2, fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		if _, err := m.Apply(src); err != nil {
			return 2, err
		}
	}

	flaky := map[string]bool{}
	if o.baseline {
		specs := unionSpecs(selected)
		logf("baseline: building the unmodified harness and running %d specs", len(specs))
		if _, err := w.Build(ctx); err != nil {
			return 2, fmt.Errorf("baseline build: %w", err)
		}
		res, err := runSpecs(ctx, w, "baseline", mutants.Mutant{Specs: specs}, o.timeout, o.lock)
		if err != nil {
			return 2, fmt.Errorf("baseline run: %w", err)
		}
		for _, s := range res.Specs {
			if s.State == results.Failed {
				flaky[s.ShortName] = true
			}
		}
		if len(flaky) > 0 {
			logf("baseline: %s failed on the unmodified build and will count for no mutant", strings.Join(sortedKeys(flaky), ", "))
		}
	}

	var verdicts []mutants.Verdict
	for i, m := range selected {
		if ctx.Err() != nil {
			break
		}
		v := judgeOne(ctx, w, m, flaky, o.timeout, o.lock)
		verdicts = append(verdicts, v)
		logf("[%d/%d] %s: %s %s (build %s, run %s)", i+1, len(selected), m.Name, v.Outcome,
			strings.Join(v.Killers, ","), v.Build.Round(time.Second), v.Run.Round(time.Second))
	}
	if err := w.Restore(); err != nil {
		return 2, err
	}

	var table strings.Builder
	fmt.Fprintf(&table, "Mutation run of %s, %d mutants, %s wall.\n\n", started.UTC().Format("2006-01-02"), len(verdicts), time.Since(started).Round(time.Second))
	if err := mutants.WriteTable(&table, verdicts); err != nil {
		return 2, err
	}
	fmt.Print(table.String())
	if err := os.WriteFile(o.out, []byte(table.String()), 0o644); err != nil {
		return 2, err
	}
	data, _ := json.MarshalIndent(verdicts, "", "  ")
	if err := os.WriteFile(filepath.Join(o.workDir, "verdicts.json"), data, 0o644); err != nil {
		return 2, err
	}
	if ctx.Err() != nil {
		return 2, errors.New("interrupted")
	}
	for _, v := range verdicts {
		if v.Outcome == mutants.Survived || v.Outcome == mutants.NoVerdict {
			return 1, nil
		}
	}
	return 0, nil
}

// judgeOne applies m, builds, runs its specs and restores the source.
func judgeOne(ctx context.Context, w *mutants.WorkDir, m mutants.Mutant, flaky map[string]bool, timeout time.Duration, lock string) mutants.Verdict {
	if m.Equivalent != "" && len(m.Specs) == 0 {
		return mutants.Verdict{Mutant: m, Outcome: mutants.Equivalent}
	}
	defer func() {
		if err := w.Restore(); err != nil {
			logf("restore after %s: %v", m.Name, err)
		}
	}()
	if err := w.Apply(m); err != nil {
		return mutants.Verdict{Mutant: m, Outcome: mutants.NoVerdict, Detail: err.Error()}
	}
	took, err := w.Build(ctx)
	if err != nil {
		return mutants.Verdict{Mutant: m, Outcome: mutants.NoVerdict, Detail: "build failed: " + firstLine(err.Error()), Build: took}
	}
	start := time.Now()
	res, err := runSpecs(ctx, w, m.Name, m, timeout, lock)
	v := mutants.Judge(m, res, flaky)
	if err != nil && v.Outcome != mutants.Killed {
		v.Outcome, v.Detail = mutants.NoVerdict, firstLine(err.Error())
	}
	if m.Equivalent != "" && v.Outcome != mutants.Killed {
		v.Outcome = mutants.Equivalent
	}
	v.Build, v.Run = took, time.Since(start)
	return v
}

// runSpecs runs m's specs with the built binary and reads its results.
func runSpecs(ctx context.Context, w *mutants.WorkDir, name string, m mutants.Mutant, timeout time.Duration, lock string) (results.Results, error) {
	return w.Run(ctx, mutants.RunRequest{Name: name, LabelFilter: m.LabelFilter(), Args: m.RunArgs, Timeout: timeout, Lock: lock})
}

func unionSpecs(ms []mutants.Mutant) []string {
	set := map[string]bool{}
	for _, m := range ms {
		for _, s := range m.Specs {
			set[s] = true
		}
	}
	return sortedKeys(set)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
