package cli

// Tests that no way a run ends leaves anything behind: a panic in the
// harness, SIGINT, SIGTERM, SIGHUP and a timeout stop it in order; SIGKILL
// leaves the embedded cluster's files, which `cleanup` (and the next run)
// removes. "Anything" is: a file under the run's TMPDIR, a process of the
// run (found by the TMPDIR in its environment: children inherit it), a port
// the run listened on.

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
	"github.com/admission-conformance/admission-conformance/internal/testhook"
)

// quickRun is a small selection: an embedded cluster without nodes, a few
// seconds of specs.
var quickRun = []string{"run", "--suite", "ordering", "--label-filter", "spec:MutatingBeforeValidating"}

// liveRun is a run going on in the background, its output watched.
type liveRun struct {
	cmd       *exec.Cmd
	tmp, work string
	mu        sync.Mutex
	stdout    bytes.Buffer
	stderr    bytes.Buffer
	done      chan struct{}
	code      int
	ended     time.Time // when it exited (set before done closes)
}

func startRun(t *testing.T, env []string, args ...string) *liveRun {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &liveRun{tmp: t.TempDir(), work: t.TempDir(), done: make(chan struct{})}
	r.cmd = exec.Command(exe, args...)
	r.cmd.Dir = r.work
	r.cmd.Env = append(append(os.Environ(), asMain+"=1", "TMPDIR="+r.tmp), env...)
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = &lockedWriter{mu: &r.mu, w: &r.stderr}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			r.mu.Lock()
			r.stdout.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
		}
		err := r.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				r.code = -int(ws.Signal())
			}
		}
		r.ended = time.Now()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (r *liveRun) output() (stdout, stderr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stdout.String(), r.stderr.String()
}

// waitUntil polls cond until it holds, failing the test if the run ends
// first or after timeout.
func (r *liveRun) waitUntil(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		select {
		case <-r.done:
			stdout, stderr := r.output()
			t.Fatalf("run ended (exit %d) before %s\nstdout:\n%s\nstderr:\n%s", r.code, what, stdout, stderr)
		default:
		}
		if time.Now().After(deadline) {
			stdout, _ := r.output()
			t.Fatalf("no %s after %s\nstdout:\n%s", what, timeout, stdout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *liveRun) printed(s string) func() bool {
	return func() bool { stdout, _ := r.output(); return strings.Contains(stdout, s) }
}

// runDirs are the dirs the run made in its TMPDIR (the embedded cluster's,
// the parallel workers', ...: every prefix rundir knows).
func (r *liveRun) runDirs() []string {
	var all []string
	for _, p := range rundir.Prefixes {
		dirs, _ := filepath.Glob(filepath.Join(r.tmp, p+"*"))
		all = append(all, dirs...)
	}
	slices.Sort(all)
	return all
}

// clusterUp: the run's dir has its owner file and the run listens (etcd).
func (r *liveRun) clusterUp() bool {
	for _, d := range r.runDirs() {
		if _, err := os.Stat(filepath.Join(d, "owner.pid")); err == nil {
			return len(listeningPorts(r.processes())) > 0
		}
	}
	return false
}

// writing: the run writes its reports (results.json is written, and
// testhook.Report pauses it before the others).
func (r *liveRun) writing() bool {
	_, err := os.Stat(filepath.Join(r.work, "_artifacts", "results.json"))
	return err == nil
}

// wait waits for the run to end and returns its exit code.
func (r *liveRun) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-r.done:
		return r.code
	case <-time.After(timeout):
		t.Fatalf("run still going %s after it was told to stop", timeout)
		return 0
	}
}

// processes are the live processes whose environment holds the run's
// TMPDIR: the run and its children.
func (r *liveRun) processes() []int {
	return processesWithEnv("TMPDIR=" + r.tmp)
}

func processesWithEnv(entry string) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join(p, "environ"))
		if err != nil {
			continue // gone, or a zombie
		}
		if slices.Contains(strings.Split(string(env), "\x00"), entry) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// listeningPorts are the TCP sockets the processes listen on, as
// "address:port" in /proc/net/tcp's hex.
func listeningPorts(pids []int) []string {
	inodes := map[string]bool{}
	for _, pid := range pids {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			if link, err := os.Readlink(fd); err == nil && strings.HasPrefix(link, "socket:[") {
				inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
			}
		}
	}
	var ports []string
	for addr, inode := range listening() {
		if inodes[inode] {
			ports = append(ports, addr)
		}
	}
	slices.Sort(ports)
	return ports
}

// listening maps every listening TCP address to its socket's inode.
func listening() map[string]string {
	out := map[string]string{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) > 9 && fields[3] == "0A" { // LISTEN
				out[fields[1]] = fields[9]
			}
		}
	}
	return out
}

// assertNothingLeft checks that the run's TMPDIR is empty, that no process
// of the run is alive and that none of ports is listened on any more. The
// run's children notice their parent is gone within moments.
func (r *liveRun) assertNothingLeft(t *testing.T, ports []string) {
	t.Helper()
	var procs []int
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if procs = r.processes(); len(procs) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(procs) > 0 {
		t.Errorf("processes of the run still alive: %v", procs)
	}
	if left := leftovers(t, r.tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
	now := listening()
	for _, p := range ports {
		if _, ok := now[p]; ok {
			t.Errorf("port %s the run listened on is still listened on", p)
		}
	}
}

func (r *liveRun) assertOneLine(t *testing.T, want string) {
	t.Helper()
	_, stderr := r.output()
	if !strings.HasPrefix(stderr, "run-conformance: ") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("stderr is not one line saying %q:\n%s%s", want, stderr, r.componentLogTails())
	}
}

// componentLogTails is the end of every components.log the run wrote (its
// report dir's, below its work dir), where a line meant for stderr would
// have gone had the run not restored its stderr before printing it.
func (r *liveRun) componentLogTails() string {
	var b strings.Builder
	_ = filepath.WalkDir(r.work, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "components.log" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		fmt.Fprintf(&b, "\n%s (last 20 lines):\n%s", path, tail(string(data), 20))
		return nil
	})
	return b.String()
}

// TestInjectedPanicIsOneLineAndLeavesNothing: a panic in the harness
// outside the specs (testhook's points) is one line naming where, exit 2,
// the cluster stopped and its files removed.
func TestInjectedPanicIsOneLineAndLeavesNothing(t *testing.T) {
	cases := []struct {
		point string
		want  string
	}{
		{testhook.EmbeddedStart, "cluster set-up failed: embedded: start kube-apiserver[0]: panic: injected panic at " + testhook.EmbeddedStart},
		{testhook.Boot, "cluster set-up failed: harness set-up: panic: injected panic at " + testhook.Boot},
		{testhook.EmbeddedStop, "tear-down failed: embedded: stop etcd: panic: injected panic at " + testhook.EmbeddedStop},
		{testhook.Report, "internal error (a bug in run-conformance) during report writing: injected panic at " + testhook.Report},
	}
	for _, tc := range cases {
		t.Run(tc.point, func(t *testing.T) {
			started := time.Now()
			r := startRun(t, []string{testhook.PanicEnv + "=" + tc.point}, quickRun...)
			var ports []string
			// Watch the ports while it runs, to check them closed after.
			for {
				select {
				case <-r.done:
				case <-time.After(50 * time.Millisecond):
					for _, p := range listeningPorts(r.processes()) {
						if !slices.Contains(ports, p) {
							ports = append(ports, p)
						}
					}
					continue
				}
				break
			}
			if r.code != 2 {
				stdout, stderr := r.output()
				t.Errorf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", r.code, stdout, stderr)
			}
			r.assertOneLine(t, tc.want)
			if _, stderr := r.output(); strings.Contains(stderr, "goroutine ") {
				t.Errorf("stderr holds a stack trace")
			}
			r.assertNothingLeft(t, ports)
			t.Logf("%s: %.1fs, listened on %d port(s)", tc.point, time.Since(started).Seconds(), len(ports))
		})
	}
}

// TestSignalsAndTimeoutStopTheRunAndLeaveNothing: SIGHUP (which Ginkgo
// does not watch: the run passes it on) during start-up and specs, and a
// start-up timeout each end the run in order: one line, exit 2 before
// specs and 1 once they ran, nothing left without any cleanup. SIGINT and
// SIGTERM in every phase: TestSignalsInEveryPhase.
func TestSignalsAndTimeoutStopTheRunAndLeaveNothing(t *testing.T) {
	type point int
	const (
		clusterStart point = iota
		midSpec
		reports
	)
	cases := []struct {
		name    string
		signals []syscall.Signal
		at      point
		args    []string
		code    int
		want    string
		again   bool // repeat the signal until the run ends
	}{
		// SIGINT and SIGTERM in every phase, one and three of them, and
		// SIGHUP during start-up: TestSignalsInEveryPhase (signals_test.go).
		{"SIGHUP during cluster start", []syscall.Signal{syscall.SIGHUP}, clusterStart, nil, 2, "interrupted by SIGHUP during cluster start-up", false},
		{"SIGHUP mid-spec", []syscall.Signal{syscall.SIGHUP}, midSpec, nil, 1, "interrupted by SIGHUP: the run stopped early", false},
		{"three SIGHUPs mid-spec", []syscall.Signal{syscall.SIGHUP, syscall.SIGHUP, syscall.SIGHUP}, midSpec, nil, 1, "interrupted a third time (SIGHUP)", true},
		{"cluster start timeout", nil, clusterStart, []string{"--bound", "clusterStart=500ms"}, 2, "ran out of its clusterStart bound, 500ms", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			started := time.Now()
			// Report writing pauses, to be caught.
			r := startRun(t, []string{testhook.PauseEnv + "=" + testhook.Report}, append(slices.Clone(quickRun), tc.args...)...)
			switch tc.at {
			case clusterStart:
				if len(tc.signals) > 0 {
					r.waitUntil(t, "cluster start", time.Minute, r.clusterUp)
				}
			case midSpec:
				r.waitUntil(t, "specs", 2*time.Minute, r.printed("running "))
				time.Sleep(300 * time.Millisecond)
			case reports:
				r.waitUntil(t, "report writing", 2*time.Minute, r.writing)
			}
			ports := listeningPorts(r.processes())
			for _, s := range tc.signals {
				if err := r.cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
				// Apart, or the runtime may merge them into one.
				time.Sleep(200 * time.Millisecond)
			}
			if tc.again {
				// On a busy machine signals close together can still merge:
				// repeat until the run ends (its reports pause 3s).
				for range 10 {
					select {
					case <-r.done:
					case <-time.After(300 * time.Millisecond):
						_ = r.cmd.Process.Signal(tc.signals[0])
						continue
					}
					break
				}
			}
			if code := r.wait(t, 2*time.Minute); code != tc.code {
				stdout, stderr := r.output()
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			r.assertOneLine(t, tc.want)
			r.assertNothingLeft(t, ports)
			t.Logf("%s: %.1fs, %d port(s) listened on at the signal", tc.name, time.Since(started).Seconds(), len(ports))
		})
	}
}

// TestSIGKILLLeftoversGoWithCleanup kills runs with SIGKILL at several
// points: their children die with them, their ports close, and the
// embedded cluster's dir (and in a parallel run the workers' dir) stays
// until `cleanup` (no flags) removes it, one line per dir; while the run
// lived, `cleanup` left its dirs alone.
func TestSIGKILLLeftoversGoWithCleanup(t *testing.T) {
	nodeRun := []string{"run", "--suite", "nodeadmit", "--label-filter", "spec:KubeletRejectsNodePorts", "--nodes", "1"}
	// Two specs in two workers: the parallel run's dir holds their logs.
	parallelRun := []string{"run", "--suite", "ordering", "--parallel", "2",
		"--label-filter", "spec:MutatingBeforeValidating || spec:MutatingConfigurationsInNameOrder"}
	// A spec measuring propagation (on a plane) and one that is not.
	planeRun := []string{"run", "--suite", "webhooks", "--parallel", "2",
		"--label-filter", "spec:WebhookConfigurationPropagation || spec:ChainTimeoutBudget"}
	cases := []struct {
		name string
		args []string
		// at is when to kill; dirsLeft is how many dirs outlive the kill
		// there.
		at       func(r *liveRun) (string, func() bool)
		dirsLeft int
		// dirsLive is how many dirs the run has at the kill, when more
		// than outlive it.
		dirsLive int
	}{
		{"during cluster start", quickRun, func(r *liveRun) (string, func() bool) { return "cluster start", r.clusterUp }, 1, 0},
		{"during node start", nodeRun, func(r *liveRun) (string, func() bool) {
			return "a node process", func() bool { return len(r.processes()) > 1 }
		}, 1, 0},
		{"mid-spec", quickRun, func(r *liveRun) (string, func() bool) { return "specs", r.printed("running ") }, 1, 0},
		{"mid-spec in parallel workers", parallelRun, func(r *liveRun) (string, func() bool) {
			return "both dirs", func() bool { return len(r.runDirs()) == 2 && r.printed("running ")() }
		}, 2, 0},
		// A propagation plane stops itself (and removes its control
		// plane's files) once its parent is gone; the run's own dirs
		// stay: its cluster's, its workers' and its planes'.
		{"beside a propagation plane", planeRun, func(r *liveRun) (string, func() bool) {
			return "the plane and two workers", func() bool { return len(r.workerProcesses()) == 3 && r.printed("running ")() }
		}, 3, 4},
		{"during report writing", quickRun, func(r *liveRun) (string, func() bool) { return "report writing", r.writing }, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			started := time.Now()
			r := startRun(t, []string{testhook.PauseEnv + "=" + testhook.Report}, tc.args...)
			what, cond := tc.at(r)
			r.waitUntil(t, what, 2*time.Minute, cond)
			procs := r.processes()
			ports := listeningPorts(procs)
			dirs := r.runDirs()
			if tc.dirsLeft > 0 {
				// A live run's dirs are never touched.
				c := runCLIIn(t, r.tmp, t.TempDir(), nil, "cleanup")
				c.mustExit(t, 0)
				live := tc.dirsLive
				if live == 0 {
					live = tc.dirsLeft
				}
				if got := r.runDirs(); !slices.Equal(got, dirs) || len(dirs) != live {
					t.Fatalf("cleanup during the run: run dirs %v, then %v\n%s", dirs, got, c.stdout)
				}
			}
			if err := r.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			r.wait(t, time.Minute)
			// Its children see it gone and end (a plane tears its control
			// plane down first).
			r.waitUntil(t, "the run's children to end", time.Minute, func() bool { return len(r.processes()) == 0 })
			if len(r.runDirs()) != tc.dirsLeft {
				t.Fatalf("after SIGKILL, run dirs %v", r.runDirs())
			}
			left := r.runDirs()
			c := runCLIIn(t, r.tmp, t.TempDir(), nil, "cleanup")
			c.mustExit(t, 0)
			lines := strings.Split(strings.TrimSpace(c.stdout), "\n")
			for _, d := range left {
				if !slices.ContainsFunc(lines, func(l string) bool {
					return strings.HasPrefix(l, "removed the files of a killed run: "+d+" (") && strings.Contains(l, fmt.Sprintf("pid %d,", r.cmd.Process.Pid))
				}) {
					t.Errorf("cleanup does not say it removed %s:\n%s", d, c.stdout)
				}
			}
			if len(left) == 0 && !strings.HasPrefix(c.stdout, "no files left") {
				t.Errorf("cleanup with nothing to remove says:\n%s", c.stdout)
			}
			if len(lines) != max(len(left), 1) {
				t.Errorf("cleanup printed %d line(s) for %d dir(s):\n%s", len(lines), len(left), c.stdout)
			}
			r.assertNothingLeft(t, ports)
			t.Logf("%s: %.1fs; at the kill %d process(es), %d port(s), %d run dir(s)", tc.name, time.Since(started).Seconds(), len(procs), len(ports), len(left))
		})
	}
}

// TestDeadNodeFailsTheCasesThatNeedItAtOnce kills the hollow kubelet (a
// child process) once a nodeadmit case has passed: every case that needs a
// node then fails at once naming node-0, instead of each waiting out the
// objectState bound (30s); cases that need no node still pass; the run
// ends in order, leaving nothing.
func TestDeadNodeFailsTheCasesThatNeedItAtOnce(t *testing.T) {
	r := startRun(t, nil, "run", "--suite", "nodeadmit,ordering", "--label-filter", "suite:nodeadmit || spec:MutatingBeforeValidating",
		"--nodes", "1", "--report-dir", "reports")
	r.waitUntil(t, "a passed nodeadmit case", 5*time.Minute, r.printed("PASSED        nodeadmit/"))
	var node []int
	for _, pid := range r.processes() {
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if slices.Contains(strings.Split(string(env), "\x00"), "ADMISSION_CONFORMANCE_CHILD=hollow-node") {
			node = append(node, pid)
		}
	}
	if len(node) != 1 {
		t.Fatalf("hollow kubelet processes: %v", node)
	}
	if err := syscall.Kill(node[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	r.waitUntil(t, "the end of the specs", 2*time.Minute, r.printed("cluster stopped in"))
	afterKill := time.Since(killed)
	if code := r.wait(t, time.Minute); code != 1 {
		stdout, stderr := r.output()
		t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	r.assertOneLine(t, "spec case(s) failed")
	res := readResults(t, filepath.Join(r.work, "reports"))
	failed := 0
	for _, s := range res.Specs {
		switch {
		case s.Suite == "ordering" && s.State != results.Passed && s.Message != results.NotSelected:
			t.Errorf("%s (%s) needs no node but %s: %s", s.ShortName, s.Name, s.State, s.Message)
		case s.State == results.Failed:
			failed++
			if s.Duration > 5 {
				t.Errorf("%s (%s) took %.1fs to fail", s.ShortName, s.Name, s.Duration)
			}
			if !strings.Contains(s.Message, "node-0") || !strings.Contains(s.Message, "died") {
				t.Errorf("%s (%s) failed without naming the dead node: %s", s.ShortName, s.Name, s.Message)
			}
		}
	}
	if failed == 0 {
		t.Error("no case failed")
	}
	if testing.Verbose() {
		for _, s := range res.Specs {
			if s.State == results.Failed {
				t.Logf("first failure: %s (%s): %s", s.ShortName, s.Name, s.Message)
				break
			}
		}
	}
	r.assertNothingLeft(t, nil)
	t.Logf("%d case(s) failed naming node-0 within %.1fs of the kill", failed, afterKill.Seconds())
}
