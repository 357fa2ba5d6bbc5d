package workcopy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/hack/workcopy"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

// A copy holds the tracked and untracked-but-not-ignored files, loses what
// the repo no longer has, keeps what keep says, and leaves unchanged files
// untouched.
func TestSync(t *testing.T) {
	repo, dst := t.TempDir(), t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	write(t, filepath.Join(repo, ".gitignore"), "/_output/\n")
	write(t, filepath.Join(repo, "go.mod"), "module x // repo\n")
	write(t, filepath.Join(repo, "a/tracked.go"), "package a\n")
	write(t, filepath.Join(repo, "gone.go"), "package x\n")
	git("add", ".")
	write(t, filepath.Join(repo, "new.go"), "package x // untracked\n")
	write(t, filepath.Join(repo, "_output/bin"), "ignored")
	if err := os.Remove(filepath.Join(repo, "gone.go")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dst, "stale.go"), "package x // removed from the repo\n")
	write(t, filepath.Join(dst, "go.mod"), "module x // the copy's own\n")
	write(t, filepath.Join(dst, "generated.go"), "package x // made in the copy\n")
	write(t, filepath.Join(dst, "a/tracked.go"), "package a\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dst, "a/tracked.go"), old, old); err != nil {
		t.Fatal(err)
	}

	keep := func(rel string) bool { return rel == "go.mod" || rel == "generated.go" }
	if err := workcopy.Sync(repo, dst, keep); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"go.mod":       "module x // the copy's own\n",
		"generated.go": "package x // made in the copy\n",
		"new.go":       "package x // untracked\n",
		"a/tracked.go": "package a\n",
	} {
		if got := read(t, filepath.Join(dst, rel)); got != want {
			t.Errorf("%s: %q, want %q", rel, got, want)
		}
	}
	for _, rel := range []string{"stale.go", "gone.go", "_output/bin"} {
		if _, err := os.Stat(filepath.Join(dst, rel)); !os.IsNotExist(err) {
			t.Errorf("%s is in the copy", rel)
		}
	}
	if info, err := os.Stat(filepath.Join(dst, "a/tracked.go")); err != nil || !info.ModTime().Equal(old) {
		t.Errorf("an unchanged file was rewritten")
	}

	if err := workcopy.Sync(repo, dst, nil); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dst, "go.mod")); got != "module x // repo\n" {
		t.Errorf("without keep, go.mod is %q", got)
	}
	if _, err := os.Stat(filepath.Join(dst, "generated.go")); !os.IsNotExist(err) {
		t.Errorf("without keep, a file the repo lacks stays")
	}
}

func TestLockIsExclusive(t *testing.T) {
	root := filepath.Join(t.TempDir(), "work")
	first, err := workcopy.Lock(root, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	var waited bool
	go func() {
		second, err := workcopy.Lock(root, func(string, ...any) { waited = true })
		if err == nil {
			second.Close()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a second lock was granted while the first was held")
	case <-time.After(200 * time.Millisecond):
	}
	first.Close()
	<-got
	if !waited {
		t.Error("the second run did not say it was waiting")
	}
}
