// Command versions runs the conformance run on every supported Kubernetes
// version and writes one matrix of the results. For each version it keeps a
// copy of the repo (hack/workcopy, as the mutation kit does) in
// WORKDIR/VERSION/src, moves the copy to the version with
// hack/update-kubernetes.sh (skipped when go.mod already pins it, or when
// nothing the move depends on changed since the last one), builds
// run-conformance there (Go's module and build caches are shared, so a warm
// cache rebuilds little), and runs `run --report-dir ARTIFACTS/VERSION`.
// Versions run one after another; a version that cannot be built or run is
// reported and the others still run.
//
// Pre-releases (v1.38.0-beta.0) are versions like the others: their column
// is marked pre-release. A version whose go.mod (after the move) names a
// toolchain (hack/update-kubernetes.sh writes one when the release needs a
// newer Go than this one) is built and tested with that toolchain
// (GOTOOLCHAIN), that version only. The move runs with
// KUBE_UNSERVED=standin: a module the proxy does not serve yet gets a
// stand-in, the release table is still checked, and the build that needs
// the module fails naming it. Before the build, each version's release
// table is checked where that version is linked: `go generate
// ./internal/contract/release` derives its inventory and the release
// tests run there (every item decided, 0 unknown); the derived inventory
// is left in ARTIFACTS/VERSION/release-inventory.json, and a version whose
// kept inventory (internal/contract/release/inventories/VERSION.json) is
// missing or differs says so. Then it writes ARTIFACTS/matrix.txt,
// matrix.json and matrix.html: every spec case's state and every measurement
// per version side by side (the matrix command's matrix.json and
// matrix.html, internal/report/matrix). `make conformance-versions`
// builds and runs it.
//
// Exit codes: 0 every version's run passed, 1 a case failed on some version,
// 2 a version could not be built or run, an interrupt, or bad input.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/hack/workcopy"
	"github.com/admission-conformance/admission-conformance/internal/report/compare"
	"github.com/admission-conformance/admission-conformance/internal/report/matrix"
)

// DefaultVersions are the releases the harness supports, one per minor.
const DefaultVersions = "v1.35.4 v1.36.3 v1.37.2"

type options struct {
	repo, workDir, artifacts, harnessVersion string
	versions, runFlags                       []string
	timeout                                  time.Duration
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "versions:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "versions:", err)
	}
	fmt.Fprintf(os.Stderr, "versions: exit %d (%s)\n", code, []string{"every version passed", "a case failed", "a version could not be built or run"}[code])
	os.Exit(code)
}

var versionPattern = regexp.MustCompile(`^v1\.[0-9]+\.[0-9]+(-(alpha|beta|rc)\.[0-9]+)?$`)

// isPreRelease: v1.38.0-beta.0.
func isPreRelease(v string) bool { return strings.Contains(v, "-") }

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("versions", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	var versions, runFlags string
	cache, _ := os.UserCacheDir()
	fs.StringVar(&o.repo, "repo", ".", "the harness checkout")
	fs.StringVar(&versions, "versions", DefaultVersions, "Kubernetes versions, separated by spaces or commas")
	fs.StringVar(&o.workDir, "workdir", filepath.Join(cache, "admission-conformance", "versions"), "reused work dir: a copy of the repo and a binary per version")
	fs.StringVar(&o.artifacts, "artifacts", filepath.Join("_artifacts", "versions"), "each version's reports go to ARTIFACTS/VERSION, the matrix to ARTIFACTS/matrix.{txt,json,html}")
	fs.StringVar(&runFlags, "run-flags", "", "extra flags for each run, as a shell would split them, e.g. \"--suite ordering --focus 'Mutating.*'\"")
	fs.StringVar(&o.harnessVersion, "harness-version", "dev", "the version the built harnesses report")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "limit for one version's run")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q: give versions with --versions", fs.Args())
	}
	seen := map[string]bool{}
	for _, v := range strings.FieldsFunc(versions, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		if !versionPattern.MatchString(v) {
			return o, fmt.Errorf("--versions: %q is not a Kubernetes release like v1.36.3 or v1.38.0-beta.0", v)
		}
		if seen[v] {
			return o, fmt.Errorf("--versions: %s given twice", v)
		}
		seen[v] = true
		o.versions = append(o.versions, v)
	}
	if len(o.versions) == 0 {
		return o, errors.New("--versions: no version given")
	}
	words, err := splitWords(runFlags)
	if err != nil {
		return o, fmt.Errorf("--run-flags: %v", err)
	}
	for _, w := range words {
		if w == "--report-dir" || strings.HasPrefix(w, "--report-dir=") {
			return o, errors.New("--run-flags: --report-dir is set per version (ARTIFACTS/VERSION)")
		}
	}
	o.runFlags = words
	if o.timeout <= 0 {
		return o, fmt.Errorf("--timeout must be positive, got %v", o.timeout)
	}
	for _, p := range []*string{&o.repo, &o.workDir, &o.artifacts} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return o, err
		}
		*p = abs
	}
	if _, err := os.Stat(filepath.Join(o.repo, "hack", "update-kubernetes.sh")); err != nil {
		return o, fmt.Errorf("--repo %s is not the harness checkout: %v", o.repo, err)
	}
	return o, nil
}

// splitWords splits s as a POSIX shell splits words: blanks separate,
// single quotes keep everything, double quotes keep all but \" and \\,
// a backslash outside quotes escapes the next character.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Outcome is what became of one version.
type Outcome struct {
	Version string `json:"version"`
	// Status is passed, failed (a case failed) or error (no build, no run,
	// or no results).
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	// PreRelease: a pre-release of Kubernetes; Toolchain the Go toolchain
	// its go.mod names (empty: this Go).
	PreRelease bool   `json:"preRelease,omitempty"`
	Toolchain  string `json:"toolchain,omitempty"`
	// ReleaseTable is the release table's check where the version is
	// linked: "0 unknown" and its summary, or what failed.
	ReleaseTable string `json:"releaseTable,omitempty"`
	// PrepareSeconds (syncing the copy and, if needed,
	// hack/update-kubernetes.sh), TableSeconds (the release table),
	// BuildSeconds and RunSeconds time the steps (0: not done).
	PrepareSeconds float64          `json:"prepareSeconds"`
	TableSeconds   float64          `json:"tableSeconds"`
	BuildSeconds   float64          `json:"buildSeconds"`
	RunSeconds     float64          `json:"runSeconds"`
	ReportDir      string           `json:"reportDir"`
	Summary        *results.Summary `json:"summary,omitempty"`

	res  results.Results
	file string
}

// Outcome statuses.
const (
	Passed = "passed"
	Failed = "failed"
	Error  = "error"
)

type logger struct {
	w io.Writer
}

func (l logger) printf(format string, args ...any) {
	fmt.Fprintf(l.w, "%s versions: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, o options, stdout io.Writer) (int, error) {
	log := logger{os.Stderr}
	started := time.Now()
	lock, err := workcopy.Lock(o.workDir, log.printf)
	if err != nil {
		return 2, err
	}
	defer lock.Close()
	if err := os.MkdirAll(o.artifacts, 0o755); err != nil {
		return 2, err
	}
	var outcomes []Outcome
	for i, v := range o.versions {
		if ctx.Err() != nil {
			outcomes = append(outcomes, Outcome{Version: v, Status: Error, Detail: "not run: interrupted"})
			continue
		}
		prefix := fmt.Sprintf("[%d/%d] %s", i+1, len(o.versions), v)
		oc := oneVersion(ctx, o, v, prefix, log)
		msg := oc.Status
		if oc.Summary != nil {
			s := oc.Summary
			msg += fmt.Sprintf(": %d passed, %d failed, %d skipped, %d not supported", s.Passed, s.Failed, s.Skipped, s.NotSupported)
		}
		if oc.Detail != "" {
			msg += " (" + oc.Detail + ")"
		}
		log.printf("%s: %s; prepare %s, release table %s, build %s, run %s", prefix, msg, secs(oc.PrepareSeconds), secs(oc.TableSeconds), secs(oc.BuildSeconds), secs(oc.RunSeconds))
		outcomes = append(outcomes, oc)
	}
	text, code, err := writeMatrix(o, outcomes, started)
	if err != nil {
		return 2, err
	}
	fmt.Fprint(stdout, text)
	log.printf("%d version(s) in %s; the matrix is in %s", len(o.versions), time.Since(started).Round(time.Second),
		filepath.Join(o.artifacts, "matrix.{txt,json,html}"))
	if ctx.Err() != nil {
		return 2, errors.New("interrupted")
	}
	return code, nil
}

func secs(s float64) string {
	if s == 0 {
		return "-"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// oneVersion prepares the copy, builds and runs one version.
func oneVersion(ctx context.Context, o options, v, prefix string, log logger) Outcome {
	oc := Outcome{Version: v, Status: Error, ReportDir: filepath.Join(o.artifacts, v), PreRelease: isPreRelease(v)}
	dir := filepath.Join(o.workDir, v)
	src := filepath.Join(dir, "src")
	bin := filepath.Join(dir, "bin", "run-conformance")

	step := time.Now()
	log.printf("%s: syncing %s from %s", prefix, src, o.repo)
	updated, err := prepare(ctx, o.repo, dir, v, func(msg string) { log.printf("%s: %s", prefix, msg) })
	oc.PrepareSeconds = time.Since(step).Seconds()
	if err != nil {
		oc.Detail = err.Error()
		return oc
	}
	if updated {
		log.printf("%s: moved the copy to %s in %s", prefix, v, time.Since(step).Round(time.Second))
	}

	oc.Toolchain, err = goModToolchain(filepath.Join(src, "go.mod"))
	if err != nil {
		oc.Detail = err.Error()
		return oc
	}
	env := goEnv(oc.Toolchain)
	if oc.Toolchain != "" {
		log.printf("%s: its go.mod names toolchain %s: building and testing this version with GOTOOLCHAIN=%s", prefix, oc.Toolchain, oc.Toolchain)
	}
	if err := os.RemoveAll(oc.ReportDir); err != nil {
		oc.Detail = err.Error()
		return oc
	}
	if err := os.MkdirAll(oc.ReportDir, 0o755); err != nil {
		oc.Detail = err.Error()
		return oc
	}

	step = time.Now()
	log.printf("%s: checking the release table where %s is linked (log: %s)", prefix, v, filepath.Join(dir, "release-table.log"))
	stopBeat := heartbeat(log, prefix+": still checking the release table", step)
	oc.ReleaseTable = releaseTable(ctx, o, src, dir, v, env)
	stopBeat()
	oc.TableSeconds = time.Since(step).Seconds()
	log.printf("%s: release table: %s", prefix, oc.ReleaseTable)

	step = time.Now()
	log.printf("%s: building run-conformance (log: %s)", prefix, filepath.Join(dir, "build.log"))
	stopBeat = heartbeat(log, prefix+": still building", step)
	err = command(ctx, src, filepath.Join(dir, "build.log"), withEnv(env), "go", "build", "-ldflags", "-X github.com/admission-conformance/admission-conformance/internal/cli.version="+o.harnessVersion, "-o", bin, "./cmd/run-conformance")
	stopBeat()
	oc.BuildSeconds = time.Since(step).Seconds()
	if err != nil {
		oc.Detail = "build failed: " + err.Error()
		if stand := standIns(dir, src); stand != "" {
			first, _, _ := strings.Cut(err.Error(), " | ")
			oc.Detail = fmt.Sprintf("build failed: the module proxy does not serve %s (moved with stand-ins, log: %s): %s (log: %s)",
				stand, filepath.Join(dir, "update.log"), first, filepath.Join(dir, "build.log"))
		}
		return oc
	}
	log.printf("%s: built in %s", prefix, time.Since(step).Round(time.Second))

	step = time.Now()
	args := append([]string{"run", "--report-dir", oc.ReportDir}, o.runFlags...)
	log.printf("%s: running run-conformance %s (output: %s)", prefix, strings.Join(args, " "), filepath.Join(oc.ReportDir, "console.log"))
	stopBeat = heartbeat(log, prefix+": still running", step)
	runCtx, cancel := context.WithTimeout(ctx, o.timeout)
	runErr := command(runCtx, src, filepath.Join(oc.ReportDir, "console.log"), func(cmd *exec.Cmd) {
		cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // the harness cleans up
		cmd.WaitDelay = time.Minute
	}, bin, args...)
	timedOut := runCtx.Err() != nil && ctx.Err() == nil
	cancel()
	stopBeat()
	oc.RunSeconds = time.Since(step).Seconds()

	file := filepath.Join(oc.ReportDir, results.FileName)
	res, readErr := results.Read(file)
	var exit *exec.ExitError
	switch {
	case timedOut:
		oc.Detail = fmt.Sprintf("run timed out after %v", o.timeout)
	case ctx.Err() != nil:
		oc.Detail = "run interrupted"
	case readErr != nil:
		oc.Detail = fmt.Sprintf("run gave no results (%v): %v", runErr, readErr)
	case runErr == nil:
		oc.Status = Passed
	case errors.As(runErr, &exit) && exit.ExitCode() == 1:
		oc.Status = Failed
	default:
		oc.Detail = "run: " + runErr.Error()
	}
	if readErr == nil {
		oc.res, oc.file = res, file
		s := res.Summary
		oc.Summary = &s
	}
	return oc
}

// heartbeat logs what is going on every minute until stopped.
func heartbeat(log logger, what string, since time.Time) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				log.printf("%s (%s)", what, time.Since(since).Round(time.Second))
			}
		}
	}()
	return func() { close(done) }
}

// command runs name in dir with its output in logPath; a failure's error
// carries the output's last lines (a compiler's errors, a script's reason).
func command(ctx context.Context, dir, logPath string, tweak func(*exec.Cmd), name string, args ...string) error {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if tweak != nil {
		tweak(cmd)
	}
	if err := cmd.Run(); err != nil {
		out, _ := os.ReadFile(logPath)
		if tail := lastLines(string(out), 6); tail != "" {
			return fmt.Errorf("%w: %s (log: %s)", err, tail, logPath)
		}
		return fmt.Errorf("%w (log: %s)", err, logPath)
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, " | "))
}

// standInDir is where hack/update-kubernetes.sh writes the stand-ins for
// modules the proxy does not serve (KUBE_UNSERVED=standin).
const standInDir = "_output/kube-stubs"

// The files hack/update-kubernetes.sh reads, and those it writes.
var (
	updateInputs  = []string{"go.mod", "go.sum", "hack/update-kubernetes.sh"}
	updateOutputs = []string{"go.mod", "go.sum", "internal/kubecompat/kubecompat_generated.go"}
)

// prepare syncs dir/src with repo and moves it to version v. The move is
// skipped when go.mod already pins v, and when the repo's go.mod, go.sum,
// update script and kubecompat templates are what they were at the last
// move (dir/update.stamp): the copy then keeps the go.mod, go.sum and
// generated file that move wrote. It reports whether it moved the copy.
func prepare(ctx context.Context, repo, dir, v string, progress func(string)) (bool, error) {
	src := filepath.Join(dir, "src")
	stampPath := filepath.Join(dir, "update.stamp")
	want, err := updateStamp(repo, v)
	if err != nil {
		return false, err
	}
	have, _ := os.ReadFile(stampPath)
	reuse := string(have) == want
	for _, rel := range updateOutputs {
		if _, err := os.Stat(filepath.Join(src, rel)); err != nil {
			reuse = false
		}
	}
	var keep func(string) bool
	if reuse {
		keep = func(rel string) bool {
			if strings.HasPrefix(rel, standInDir+"/") {
				return true
			}
			for _, out := range updateOutputs {
				if rel == out {
					return true
				}
			}
			return false
		}
	}
	if err := workcopy.Sync(repo, src, keep); err != nil {
		return false, err
	}
	if reuse {
		progress(fmt.Sprintf("go.mod already moved to %s (nothing it depends on changed)", v))
		return false, nil
	}
	_ = os.Remove(stampPath)
	pinned, err := pinnedVersion(filepath.Join(src, "go.mod"))
	if err != nil {
		return false, err
	}
	moved := false
	if pinned != v {
		progress(fmt.Sprintf("hack/update-kubernetes.sh %s (go.mod pins %s; log: %s)", v, pinned, filepath.Join(dir, "update.log")))
		if err := command(ctx, src, filepath.Join(dir, "update.log"), withEnv([]string{"KUBE_UNSERVED=standin"}), "bash", "hack/update-kubernetes.sh", v); err != nil {
			return false, fmt.Errorf("hack/update-kubernetes.sh %s failed: %w", v, err)
		}
		moved = true
	}
	return moved, os.WriteFile(stampPath, []byte(want), 0o644)
}

// updateStamp hashes v and the repo's files a move to v depends on.
func updateStamp(repo, v string) (string, error) {
	files := append([]string(nil), updateInputs...)
	templates, err := filepath.Glob(filepath.Join(repo, "internal", "kubecompat", "v1_*.go.txt"))
	if err != nil {
		return "", err
	}
	for _, t := range templates {
		rel, _ := filepath.Rel(repo, t)
		files = append(files, rel)
	}
	sort.Strings(files)
	h := sha256.New()
	fmt.Fprintf(h, "version %s\n", v)
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(repo, rel))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", rel, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

var toolchainLine = regexp.MustCompile(`(?m)^toolchain\s+(go1\.[0-9]+(?:\.[0-9]+)?)\s*$`)

// goModToolchain reads the toolchain line of a go.mod (empty: none).
func goModToolchain(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	if m := toolchainLine.FindSubmatch(data); m != nil {
		return string(m[1]), nil
	}
	return "", nil
}

// goEnv is the environment of a version's go commands: its toolchain, if
// its go.mod names one.
func goEnv(toolchain string) []string {
	if toolchain == "" {
		return nil
	}
	return []string{"GOTOOLCHAIN=" + toolchain}
}

func withEnv(env []string) func(*exec.Cmd) {
	return func(cmd *exec.Cmd) { cmd.Env = append(cmd.Env, env...) }
}

var standInLine = regexp.MustCompile(`(?m)^\s*(\S+) => \./` + regexp.QuoteMeta(standInDir) + `/`)

var standInSummary = regexp.MustCompile(`\(stand-ins: (.*)\), internal/kubecompat`)

// standIns names the modules the move replaced by stand-ins: as the move's
// log (dir/update.log) says, with their versions, else as the copy's
// go.mod replaces them.
func standIns(dir, src string) string {
	if log, err := os.ReadFile(filepath.Join(dir, "update.log")); err == nil {
		if m := standInSummary.FindAllSubmatch(log, -1); m != nil {
			return string(m[len(m)-1][1])
		}
	}
	data, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return ""
	}
	var names []string
	for _, m := range standInLine.FindAllSubmatch(data, -1) {
		names = append(names, string(m[1]))
	}
	return strings.Join(names, ", ")
}

// releaseTable derives the version's release inventory where it is linked
// and runs the release table's tests there; it says what came of it.
func releaseTable(ctx context.Context, o options, src, dir, v string, env []string) string {
	logPath := filepath.Join(dir, "release-table.log")
	if err := command(ctx, src, filepath.Join(dir, "release-generate.log"), withEnv(env), "go", "generate", "./internal/contract/release"); err != nil {
		return "could not derive the inventory: " + err.Error()
	}
	derived := filepath.Join(src, "framework", "contract", "release", "inventories", v+".json")
	note := ""
	if data, err := os.ReadFile(derived); err == nil {
		_ = os.WriteFile(filepath.Join(o.artifacts, v, "release-inventory.json"), data, 0o644)
		kept, kerr := os.ReadFile(filepath.Join(o.repo, "framework", "contract", "release", "inventories", v+".json"))
		switch {
		case kerr != nil:
			note = fmt.Sprintf("; not kept yet: cp %s internal/contract/release/inventories/", filepath.Join(o.artifacts, v, "release-inventory.json"))
		case string(kept) != string(data):
			note = fmt.Sprintf("; the kept inventory differs: cp %s internal/contract/release/inventories/%s.json", filepath.Join(o.artifacts, v, "release-inventory.json"), v)
		}
	}
	err := command(ctx, src, logPath, withEnv(env), "go", "test", "-count=1", "-v",
		"-run", "^(TestPinnedInventoryIsDecided|TestTableClausesExist|TestTableEntriesAreValid|TestStoredInventoriesAreDecided)$", "./internal/contract/release")
	out, _ := os.ReadFile(logPath)
	summary := ""
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, "kubelet handlers: "); i >= 0 && strings.Contains(line, "release_test.go") && summary == "" {
			summary = strings.TrimSpace(line[strings.Index(line, ": ")+2:])
		}
	}
	if err != nil {
		if list := undecided(string(out)); list != "" {
			return fmt.Sprintf("FAILED: %s (log: %s)%s", list, logPath, note)
		}
		return "FAILED: " + err.Error() + note
	}
	return "passed: " + summary + note
}

var (
	unknownLine = regexp.MustCompile(`unknown: Kubernetes \S+ has (?:feature gate|kube-apiserver admission plugin|kubelet pod admit handler) (\S+) `)
	staleLine   = regexp.MustCompile(`stale: the table decides (?:feature gate|kube-apiserver admission plugin|kubelet pod admit handler) (\S+), `)
)

// undecided sums up the release tests' unknown and stale items (each
// named once, whichever tests named it): "1 unknown (A), 2 stale (B, C)".
func undecided(out string) string {
	var parts []string
	for _, c := range []struct {
		what string
		re   *regexp.Regexp
	}{{"unknown", unknownLine}, {"stale", staleLine}} {
		seen := map[string]bool{}
		var names []string
		for _, m := range c.re.FindAllStringSubmatch(out, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				names = append(names, m[1])
			}
		}
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", len(names), c.what, strings.Join(names, ", ")))
		}
	}
	return strings.Join(parts, ", ")
}

var pinLine = regexp.MustCompile(`(?m)^\s*(?:require\s+)?k8s\.io/kubernetes\s+(v[^\s]+)\s*(?://.*)?$`)

// pinnedVersion reads the k8s.io/kubernetes requirement of a go.mod.
func pinnedVersion(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	m := pinLine.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s does not require k8s.io/kubernetes", gomod)
	}
	return string(m[1]), nil
}

// writeMatrix writes ARTIFACTS/matrix.{txt,json,html} and returns the text
// and the matrix's exit code (2 if a version gave no verdict, 1 if a case
// failed, else 0: the matrix command's rule). matrix.json and matrix.html
// are the matrix command's (internal/report/matrix): a version is a
// target, its steps' times and error included.
func writeMatrix(o options, outcomes []Outcome, started time.Time) (string, int, error) {
	inputs := make([]matrix.Input, len(outcomes))
	anyResults := false
	for i, oc := range outcomes {
		inputs[i] = outcomeInput(o, oc)
		anyResults = anyResults || inputs[i].Results != nil
	}
	m := matrix.Build(inputs, matrix.Header{Title: "Admission conformance across Kubernetes versions",
		Started: started, Finished: time.Now(), RunFlags: append([]string{}, o.runFlags...), Thresholds: compare.DefaultThresholds()})

	var text strings.Builder
	writeSummary(&text, o, outcomes, started)
	if anyResults {
		text.WriteString("\n")
		m.WriteText(&text)
	}
	if err := os.WriteFile(filepath.Join(o.artifacts, "matrix.txt"), []byte(text.String()), 0o644); err != nil {
		return "", 0, err
	}
	return text.String(), m.ExitCode, matrix.Write(o.artifacts, m)
}

// outcomeInput is a version's outcome as a target of the matrix: its
// status as the exit code its run had, its report dir relative to the
// artifacts (where matrix.html is).
func outcomeInput(o options, oc Outcome) matrix.Input {
	desc := "Kubernetes " + oc.Version
	if oc.PreRelease {
		desc += " (pre-release)"
	}
	if oc.Toolchain != "" {
		desc += ", built with " + oc.Toolchain
	}
	if oc.ReleaseTable != "" {
		desc += "; release table " + oc.ReleaseTable
	}
	in := matrix.Input{Name: oc.Version, Description: desc, PreRelease: oc.PreRelease, Error: oc.Detail, ExitCode: matrix.ExitError,
		Duration: time.Duration(oc.RunSeconds * float64(time.Second)),
		Steps: []matrix.Step{{Name: "prepare", Seconds: oc.PrepareSeconds}, {Name: "release table", Seconds: oc.TableSeconds},
			{Name: "build", Seconds: oc.BuildSeconds}, {Name: "run", Seconds: oc.RunSeconds}}}
	switch oc.Status {
	case Passed:
		in.ExitCode = matrix.ExitPassed
	case Failed:
		in.ExitCode = matrix.ExitFailed
	}
	if rel, err := filepath.Rel(o.artifacts, oc.ReportDir); err == nil && oc.ReportDir != "" {
		in.ReportDir = rel
	}
	if oc.file != "" {
		res := oc.res
		in.Results, in.Source = &res, oc.file
	}
	return in
}

// writeSummary prints one line per version: its steps' times and outcome.
func writeSummary(w io.Writer, o options, outcomes []Outcome, started time.Time) {
	flags := "none"
	if len(o.runFlags) > 0 {
		flags = strings.Join(o.runFlags, " ")
	}
	fmt.Fprintf(w, "Kubernetes version matrix of %s: %d version(s), %s wall, run flags: %s\n",
		started.UTC().Format("2006-01-02"), len(outcomes), time.Since(started).Round(time.Second), flags)
	fmt.Fprintf(w, "  %-16s %-8s %-8s %-8s %-8s %s\n", "version", "prepare", "table", "build", "run", "result")
	for _, oc := range outcomes {
		name := oc.Version
		if oc.PreRelease {
			name += "*"
		}
		result := oc.Status
		if oc.Summary != nil {
			s := oc.Summary
			result += fmt.Sprintf(": %d passed, %d failed, %d skipped, %d not supported", s.Passed, s.Failed, s.Skipped, s.NotSupported)
		}
		if oc.Detail != "" {
			result += ": " + oc.Detail
		}
		if oc.ReleaseTable != "" {
			result += "; release table " + oc.ReleaseTable
		}
		if oc.Toolchain != "" {
			result += "; Go " + oc.Toolchain
		}
		fmt.Fprintf(w, "  %-16s %-8s %-8s %-8s %-8s %s\n", name, secs(oc.PrepareSeconds), secs(oc.TableSeconds), secs(oc.BuildSeconds), secs(oc.RunSeconds), result)
	}
	for _, oc := range outcomes {
		if oc.PreRelease {
			fmt.Fprintln(w, "  * a pre-release of Kubernetes")
			break
		}
	}
}
