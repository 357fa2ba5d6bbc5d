package rundir

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ownedBy hands dir to cmd's process, as Create records its own: "<pid>
// <start time>".
func ownedBy(t *testing.T, dir string, cmd *exec.Cmd) int {
	t.Helper()
	pid := cmd.Process.Pid
	_, start, ok := procStat(pid)
	if !ok {
		t.Skip("no /proc")
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(pid)+" "+start+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return pid
}

// parallelRunDir lays out a parallel run's dir as the parent and its
// workers fill it: attach file, dead nodes file, routes, a dir per spec
// with the worker's output and results.
func parallelRunDir(t *testing.T, base string) string {
	t.Helper()
	dir, err := Create(base, ParallelPrefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"attach.json", "dead-nodes.json", "routes/w1", "MutatingBeforeValidating/output.log", "MutatingBeforeValidating/results.json"} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestParallelDirOfADeadRunIsRemoved: a parallel run's dir, recorded with
// its owner, stays while the owner runs and is removed, contents and all,
// by the cleanup logic (RemoveLeftovers, which `cleanup` and every run
// call) once the owner is dead, as after a SIGKILL.
func TestParallelDirOfADeadRunIsRemoved(t *testing.T) {
	base := t.TempDir()
	owner := exec.Command("sleep", "60")
	if err := owner.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = owner.Process.Kill(); _, _ = owner.Process.Wait() }()
	dir := parallelRunDir(t, base)
	pid := ownedBy(t, dir, owner)

	removed, err := RemoveLeftovers(base)
	if err != nil || len(removed) != 0 {
		t.Fatalf("with its owner running: removed %v, %v; want nothing", removed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "MutatingBeforeValidating", "results.json")); err != nil {
		t.Fatalf("a running run's dir was touched: %v", err)
	}

	if err := owner.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_, _ = owner.Process.Wait()
	removed, err = RemoveLeftovers(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0].Dir != dir || removed[0].PID != pid || removed[0].Bytes == 0 {
		t.Fatalf("removed %+v, want %s of pid %d with its size", removed, dir, pid)
	}
	if !strings.Contains(removed[0].String(), "pid "+strconv.Itoa(pid)+", is no longer running") {
		t.Errorf("leftover line %q does not name the dead owner", removed[0])
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("left %v in the temp dir", left)
	}
}

// TestParallelDirOfAZombieOwnerIsRemoved: an owner killed but not yet
// reaped (its parent, say a test or a shell, has not waited) counts as
// gone.
func TestParallelDirOfAZombieOwnerIsRemoved(t *testing.T) {
	base := t.TempDir()
	owner := exec.Command("sleep", "60")
	if err := owner.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _, _ = owner.Process.Wait() }()
	dir := parallelRunDir(t, base)
	ownedBy(t, dir, owner)
	if err := owner.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if state, _, ok := procStat(owner.Process.Pid); !ok || state == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the killed owner did not become a zombie")
		}
		time.Sleep(10 * time.Millisecond)
	}
	removed, err := RemoveLeftovers(base)
	if err != nil || len(removed) != 1 || removed[0].Dir != dir {
		t.Fatalf("removed %+v, %v; want %s", removed, err, dir)
	}
}

// tempDirCall matches the standard library's calls that make something in
// the system temp dir: the base argument "" or os.TempDir().
var tempDirCall = regexp.MustCompile(`(os\.MkdirTemp|os\.CreateTemp|ioutil\.TempDir|ioutil\.TempFile)\(\s*(""|os\.TempDir\(\))`)

// TestEveryTempDirOfARunIsARunDir: no code a run executes (cmd/ and
// framework/, tests aside) makes a dir or file in the system temp dir but
// through Create, so that everything a killed run leaves there has an owner
// file and a prefix RemoveLeftovers knows.
func TestEveryTempDirOfARunIsARunDir(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	self, _ := filepath.Abs("rundir.go")
	checked := 0
	for _, top := range []string{"cmd", "framework"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == self {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			checked++
			for i, line := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				if m := tempDirCall.FindString(line); m != "" {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s:%d: %s makes its dir in the system temp dir outside rundir.Create: a run killed with SIGKILL would leave it for good", rel, i+1, m)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files under %s", checked, root)
	}
}
