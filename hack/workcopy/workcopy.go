// Package workcopy keeps a copy of a git checkout's files in a reusable work
// dir, for the kits that build the harness outside the checkout: the
// mutation kit (hack/mutants) and the Kubernetes version matrix
// (hack/versions). Syncing rewrites only files whose content changed, so Go's
// build cache stays warm from one invocation to the next.
package workcopy

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Lock takes the exclusive lock of a work dir (root/lock), creating root,
// and waits, saying so through log, while another kit run holds it. Closing
// the file releases the lock.
func Lock(root string, log func(string, ...any)) (*os.File, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("work dir: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(root, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("work dir lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		log("work dir %s is in use by another kit run; waiting", root)
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			lock.Close()
			return nil, fmt.Errorf("work dir lock: %w", err)
		}
	}
	return lock, nil
}

// Sync makes dst hold exactly repo's files: tracked and
// untracked-but-not-ignored (so work in progress is built too), without
// those deleted in the work tree. Files for which keep returns true (paths
// relative to dst; keep may be nil) are left as dst has them: neither
// overwritten nor removed.
func Sync(repo, dst string, keep func(rel string) bool) error {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files in %s: %w", repo, commandError(err))
	}
	kept := func(rel string) bool { return keep != nil && keep(rel) }
	want := map[string]bool{}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		want[rel] = true
		if kept(rel) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(repo, rel))
		if os.IsNotExist(err) {
			delete(want, rel) // deleted in the work tree, not yet in git
			continue
		}
		if err != nil {
			return err
		}
		if err := writeIfChanged(filepath.Join(dst, rel), src); err != nil {
			return err
		}
	}
	return filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dst, path)
		if !want[rel] && !kept(rel) {
			return os.Remove(path)
		}
		return nil
	})
}

func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// commandError adds a failed command's stderr to its error.
func commandError(err error) error {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}
