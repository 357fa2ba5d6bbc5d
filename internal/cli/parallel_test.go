package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/reports"
	"github.com/admission-conformance/admission-conformance/internal/runconfig"
)

// Every spec that touches state other cases share says so, or a parallel
// run would put it beside a case that changes that state.
func TestIsolationNamesTheSharedStateEachSpecUses(t *testing.T) {
	names := func(i spec.Isolation, state string) bool {
		return i.Serial || slices.Contains(i.Exclusive, state) || slices.Contains(i.Shares, state)
	}
	serial := 0
	for _, s := range spec.All() {
		if runconfig.UsesNodes(s) && !names(s.Isolation, spec.NodesState) {
			t.Errorf("%s places pods on nodes but its isolation (%s) does not name %s", s.ShortName, s.Isolation, spec.NodesState)
		}
		if s.Suite == "initializers" && !names(s.Isolation, spec.InitializersState) {
			t.Errorf("%s creates pods where the reference initializers act but its isolation (%s) does not name %s",
				s.ShortName, s.Isolation, spec.InitializersState)
		}
		if slices.Contains(s.Features, features.NodeAdmissionPlugins) && !s.Isolation.Serial && !slices.Contains(s.Isolation.Exclusive, spec.NodesState) {
			t.Errorf("%s installs node plugins, which judge every pod on the node, but does not hold %s", s.ShortName, spec.NodesState)
		}
		if s.Isolation.Serial {
			serial++
		}
	}
	if serial == 0 {
		t.Errorf("no spec runs alone")
	}
	r := runCLI(t, "list")
	r.mustExit(t, 0)
	if !strings.Contains(r.stdout, "ISOLATION") || !regexp.MustCompile(`KubeletRejectsTaintToleration\s.*\bserial\b`).MatchString(r.stdout) {
		t.Errorf("list does not show the isolation:\n%s", r.stdout)
	}
}

func TestBadParallelIsOneLineExitTwo(t *testing.T) {
	r := runCLI(t, "run", "--parallel", "-1")
	r.mustExit(t, 2)
	if !strings.Contains(r.stderr, "--parallel") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
		t.Errorf("stderr: %q", r.stderr)
	}
}

// caseStates is every case's name and state, sorted by name.
func caseStates(res results.Results) []string {
	var out []string
	for _, s := range res.Specs {
		out = append(out, s.Name+" => "+string(s.State)+" "+strings.SplitN(s.Message, "\n", 2)[0])
	}
	sort.Strings(out)
	return out
}

// A parallel run reports the same cases in the same states as a serial run,
// in one results.json, with one progress line per case.
func TestParallelRunReportsWhatASerialRunReports(t *testing.T) {
	serialDir, parallelDir := t.TempDir(), t.TempDir()
	serial := runCLI(t, "run", "--suite", "ordering", "--parallel", "1", "--report-dir", serialDir)
	serial.mustExit(t, 0)
	par := runCLI(t, "run", "--suite", "ordering", "--parallel", "4", "--report-dir", parallelDir)
	par.mustExit(t, 0)
	s, p := readResults(t, serialDir), readResults(t, parallelDir)
	if a, b := caseStates(s), caseStates(p); !slices.Equal(a, b) {
		t.Errorf("serial and parallel runs differ:\nserial:\n%s\nparallel:\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if s.Summary != p.Summary || p.Cluster.Provider != s.Cluster.Provider || p.Cluster.KubernetesVersion != s.Cluster.KubernetesVersion {
		t.Errorf("summary or cluster: serial %+v %+v, parallel %+v %+v", s.Summary, s.Cluster, p.Summary, p.Cluster)
	}
	if strings.Contains(serial.stdout, "worker processes") || !strings.Contains(par.stdout, "worker processes, up to 4 at once") {
		t.Errorf("which run was parallel?\nserial:\n%s\nparallel:\n%s", serial.stdout, par.stdout)
	}
	selected := s.Summary.Passed
	lines := regexp.MustCompile(`(?m)^\[\d+/(\d+)\] PASSED +ordering/`).FindAllStringSubmatch(par.stdout, -1)
	if len(lines) != selected || lines[0][1] != strconv.Itoa(selected) {
		t.Errorf("%d progress lines for %d cases:\n%s", len(lines), selected, par.stdout)
	}
	for _, f := range reports.Files {
		if _, err := os.Stat(filepath.Join(parallelDir, f)); err != nil {
			t.Errorf("parallel run: %v", err)
		}
	}
	if left := leftovers(t, par.tmp); len(left) > 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}

// Ctrl-C stops a parallel run as it stops a serial one: the running cases
// are interrupted and clean up, the others are reported not run, the
// reports are written, and nothing is left behind.
func TestInterruptedParallelRunCleansUpEverything(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp, work, reportDir := t.TempDir(), t.TempDir(), t.TempDir()
	cmd := exec.Command(exe, "run", "--suite", "webhooks", "--parallel", "3", "--report-dir", reportDir)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), asMain+"=1", "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	interrupted := false
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if !interrupted && regexp.MustCompile(`^\[\d+/\d+\] `).MatchString(sc.Text()) {
			// Cases are running: stop the run as a terminal's Ctrl-C would.
			time.Sleep(time.Second)
			_ = cmd.Process.Signal(syscall.SIGINT)
			interrupted = true
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the interrupted run did not end\nstdout:\n%s", out.String())
	}
	if !interrupted {
		t.Fatalf("no case ran:\n%s\n%s", out.String(), stderr.String())
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit %v, want 1 (the interrupted cases failed)\nstdout:\n%s\nstderr:\n%s", err, out.String(), stderr.String())
	}
	expectStoppedMidway(t, readResults(t, reportDir))
	if !strings.Contains(out.String(), "cluster stopped") {
		t.Errorf("the cluster was not stopped:\n%s", out.String())
	}
	if left := leftovers(t, tmp); len(left) > 0 {
		t.Errorf("left behind in TMPDIR: %v", left)
	}
}

// expectStoppedMidway: the results of a run interrupted while cases ran
// hold both passed cases and cases reported not run.
func expectStoppedMidway(t *testing.T, res results.Results) {
	t.Helper()
	notRun := 0
	for _, s := range res.Specs {
		if s.State == results.Skipped && strings.HasPrefix(s.Message, results.NotRun) {
			notRun++
		}
	}
	if notRun == 0 || res.Summary.Passed == 0 {
		t.Errorf("%d cases not run, %d passed; want both after an interrupt midway", notRun, res.Summary.Passed)
	}
}
