package mutants

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/admission-conformance/admission-conformance/hack/workcopy"
)

// WorkDir is the kit's one reusable directory: private copies of the pinned
// modules, a copy of the harness wired to them with replace, the mutant
// binary and each mutant's reports. Reusing it keeps Go's build cache warm:
// after the first build a mutant recompiles only what its edit touches.
type WorkDir struct {
	Root string
	// Repo is the harness checkout the copy is made from.
	Repo string
	// modules maps a module path to its pristine (module cache) directory
	// and to its private copy.
	pristine map[string]string
	private  map[string]string
	lock     *os.File
}

// Harness is the copy of the harness module that builds against the
// private module copies.
func (w *WorkDir) Harness() string { return filepath.Join(w.Root, "harness") }

// Binary is where the mutant harness binary is built.
func (w *WorkDir) Binary() string { return filepath.Join(w.Root, "bin", "run-conformance") }

// Reports is where a mutant's run writes its reports.
func (w *WorkDir) Reports(name string) string { return filepath.Join(w.Root, "reports", name) }

// OpenWorkDir locks root (waiting for another kit run to finish), then
// prepares it: the private module copies (made once per version), the
// harness copy synced with repo's files, and every file a mutant may have
// edited restored, so a run killed half-way leaves no fault behind.
func OpenWorkDir(root, repo string, log func(string, ...any)) (*WorkDir, error) {
	lock, err := workcopy.Lock(root, log)
	if err != nil {
		return nil, err
	}
	w := &WorkDir{Root: root, Repo: repo, pristine: map[string]string{}, private: map[string]string{}, lock: lock}
	if err := w.prepare(log); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Close releases the lock.
func (w *WorkDir) Close() error { return w.lock.Close() }

func (w *WorkDir) prepare(log func(string, ...any)) error {
	for _, mod := range Modules {
		dir, version, err := moduleDir(w.Repo, mod)
		if err != nil {
			return err
		}
		private := filepath.Join(w.Root, "modules", mod+"@"+version)
		w.pristine[mod], w.private[mod] = dir, private
		stamp := filepath.Join(private, ".admission-conformance-copied")
		if _, err := os.Stat(stamp); err == nil {
			continue
		}
		log("copying %s@%s into the work dir", mod, version)
		if err := os.RemoveAll(private); err != nil {
			return err
		}
		if err := copyTree(dir, private); err != nil {
			return fmt.Errorf("copy %s: %w", mod, err)
		}
		if err := os.WriteFile(stamp, nil, 0o644); err != nil {
			return err
		}
	}
	if err := w.restoreAll(); err != nil {
		return err
	}
	return w.syncHarness()
}

// moduleDir asks the go command where the repo's pinned copy of mod is,
// downloading it first if the module cache lacks it (a fresh machine's
// does: the kit's own build needs none of the modules it mutates).
func moduleDir(repo, mod string) (dir, version string, err error) {
	dir, version, err = listModule(repo, mod)
	if err != nil || dir != "" {
		return dir, version, err
	}
	cmd := exec.Command("go", "mod", "download", mod)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if _, err := cmd.Output(); err != nil {
		return "", "", fmt.Errorf("go mod download %s: %w", mod, commandError(err))
	}
	if dir, version, err = listModule(repo, mod); err == nil && dir == "" {
		err = fmt.Errorf("%s is not in the module cache after go mod download in %s", mod, repo)
	}
	return dir, version, err
}

// listModule is go list -m's directory and version for mod; the directory
// is empty while mod is not downloaded.
func listModule(repo, mod string) (dir, version string, err error) {
	cmd := exec.Command("go", "list", "-m", "-json", mod)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go list -m %s: %w", mod, commandError(err))
	}
	var info struct {
		Version, Dir string
		Replace      *struct{ Version, Dir string }
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return "", "", fmt.Errorf("go list -m %s: %w", mod, err)
	}
	if info.Replace != nil {
		info.Version, info.Dir = info.Replace.Version, info.Replace.Dir
	}
	return info.Dir, info.Version, nil
}

// Pristine returns the unmodified source of a mutant's file.
func (w *WorkDir) Pristine(m Mutant) ([]byte, error) {
	return os.ReadFile(filepath.Join(w.pristine[m.Module], m.File))
}

// dirtyList records the files a mutant edited, so a later run restores them
// even if this one was killed between edit and restore.
func (w *WorkDir) dirtyList() string { return filepath.Join(w.Root, "dirty") }

// Apply writes m's edit into the private copy.
func (w *WorkDir) Apply(m Mutant) error {
	src, err := w.Pristine(m)
	if err != nil {
		return err
	}
	mutated, err := m.Apply(src)
	if err != nil {
		return err
	}
	return w.WriteFile(m.Module, m.File, mutated)
}

// WriteFile writes data as file (a path inside module mod) of the private
// copy, first recording it as dirty, so Restore puts the pristine file back
// (or removes a file the module does not have) even after a killed run.
func (w *WorkDir) WriteFile(mod, file string, data []byte) error {
	if _, ok := w.private[mod]; !ok {
		return fmt.Errorf("%s is not one of the kit's modules (%s)", mod, strings.Join(Modules, ", "))
	}
	f, err := os.OpenFile(w.dirtyList(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(mod + "\t" + file + "\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(w.private[mod], file), data, 0o644)
}

// Private is the directory of the private copy of module mod.
func (w *WorkDir) Private(mod string) string { return w.private[mod] }

// restoreAll puts back the pristine content of every file listed as dirty.
func (w *WorkDir) restoreAll() error {
	data, err := os.ReadFile(w.dirtyList())
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		mod, file, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(w.pristine[mod], file))
		if os.IsNotExist(err) {
			// A file the module does not have (a mutant switch): remove it.
			if err := os.Remove(filepath.Join(w.private[mod], file)); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("restore %s %s: %w", mod, file, err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("restore %s %s: %w", mod, file, err)
		}
		if err := os.WriteFile(filepath.Join(w.private[mod], file), src, 0o644); err != nil {
			return fmt.Errorf("restore %s %s: %w", mod, file, err)
		}
	}
	return os.Remove(w.dirtyList())
}

// Restore undoes every edit.
func (w *WorkDir) Restore() error { return w.restoreAll() }

// syncHarness makes the harness copy hold exactly the repo's files (tracked
// and untracked-but-not-ignored, so work in progress is tested too) with
// go.mod replacing the pinned modules by their private copies.
func (w *WorkDir) syncHarness() error {
	if err := workcopy.Sync(w.Repo, w.Harness(), nil); err != nil {
		return err
	}
	args := []string{"mod", "edit"}
	for _, mod := range Modules {
		args = append(args, "-replace", mod+"="+w.private[mod])
	}
	edit := exec.Command("go", args...)
	edit.Dir = w.Harness()
	if out, err := edit.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// copyTree copies a module cache directory (read-only files) into a
// writable tree.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// commandError adds a failed command's stderr to its error.
func commandError(err error) error {
	if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return err
}
