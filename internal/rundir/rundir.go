// Package rundir makes the temp dirs a run writes (the embedded cluster's,
// the parallel workers', kind's, image builds') and finds the ones killed
// runs left: every dir is created with an owner file naming its process, and
// carries one of Prefixes, so that the next run and `cleanup` remove exactly
// the dirs whose owner is gone, whoever created them.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ownerFile, in every run's dir, names the process that owns the dir:
// "<pid> <start time>", the start time being field 22 of /proc/<pid>/stat
// (clock ticks since boot; absent where there is no /proc), so that a pid
// the system has since given to another process is not taken for the owner.
const ownerFile = "owner.pid"

// ownerGrace is how old a run dir without a readable owner file must be
// before it counts as left behind: a run writes the file right after
// creating the dir, so only a run killed in between leaves such a dir.
const ownerGrace = time.Minute

// The prefixes of the dirs runs create, one per owner.
const (
	EmbeddedPrefix = "admission-conformance-embedded-"
	ParallelPrefix = "admission-conformance-parallel-"
	KindPrefix     = "admission-conformance-kind-"
	ImagePrefix    = "admission-conformance-image-"
)

// Prefixes lists every prefix RemoveLeftovers and RemoveOwn look for. A dir
// made with Create under another prefix would never be swept: Create refuses
// it.
var Prefixes = []string{EmbeddedPrefix, ParallelPrefix, KindPrefix, ImagePrefix}

// Create makes a new dir in base (default: the system temp dir) whose name
// starts with prefix (one of Prefixes), owned by this process.
func Create(base, prefix string) (string, error) {
	if !known(prefix) {
		return "", fmt.Errorf("run dir prefix %q is not one of %v", prefix, Prefixes)
	}
	dir, err := os.MkdirTemp(baseDir(base), prefix)
	if err != nil {
		return "", fmt.Errorf("create temp dir: %w", err)
	}
	if err := writeOwner(dir); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

func known(name string) bool {
	for _, p := range Prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// writeOwner records this process as the owner of dir.
func writeOwner(dir string) error {
	owner := strconv.Itoa(os.Getpid())
	if _, start, ok := procStat(os.Getpid()); ok {
		owner += " " + start
	}
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner+"\n"), 0o644)
}

// Leftover is the dir of a run whose owner process is gone, removed by
// RemoveLeftovers.
type Leftover struct {
	Dir string
	// PID is the owner that is no longer running (0: the dir named none).
	PID   int
	Bytes int64
}

func (l Leftover) String() string {
	owner := "no owner recorded"
	if l.PID > 0 {
		owner = fmt.Sprintf("its run, pid %d, is no longer running", l.PID)
	}
	return fmt.Sprintf("%s (%.1f MB; %s)", l.Dir, float64(l.Bytes)/1e6, owner)
}

// RemoveLeftovers removes the run dirs in base (default: the system temp
// dir, where runs create them) whose owner process is no longer running, as
// a run killed with SIGKILL leaves them, and returns what it removed. A dir
// whose owner runs is never touched.
func RemoveLeftovers(base string) ([]Leftover, error) {
	base = baseDir(base)
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil, fmt.Errorf("look for leftovers in %s: %w", base, err)
	}
	var removed []Leftover
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !known(e.Name()) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		pid, gone := ownerGone(dir)
		if !gone {
			continue
		}
		size := dirSize(dir)
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("remove leftover %s: %w", dir, err))
			continue
		}
		removed = append(removed, Leftover{Dir: dir, PID: pid, Bytes: size})
	}
	return removed, errors.Join(errs...)
}

// ownerGone reads dir's owner file and says whether its process is gone.
func ownerGone(dir string) (pid int, gone bool) {
	data, err := os.ReadFile(filepath.Join(dir, ownerFile))
	fields := strings.Fields(string(data))
	if err == nil && len(fields) > 0 {
		pid, err = strconv.Atoi(fields[0])
	}
	if err != nil || len(fields) == 0 || pid <= 0 {
		// No owner recorded: gone once the dir is old enough that its run
		// would have written the file.
		info, err := os.Stat(dir)
		return 0, err == nil && time.Since(info.ModTime()) > ownerGrace
	}
	start := ""
	if len(fields) > 1 {
		start = fields[1]
	}
	return pid, !running(pid, start)
}

// running reports whether process pid runs and, when start is known, is the
// process that started then (not a later one that got the same pid).
func running(pid int, start string) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	state, started, ok := procStat(pid)
	if !ok {
		return true // no /proc: kill(0) found it (a process that just ended goes next time)
	}
	if state == "Z" || state == "X" {
		return false // ended, not yet reaped
	}
	return start == "" || start == started
}

// procStat returns a process's state and start time from /proc/<pid>/stat.
func procStat(pid int) (state, start string, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", "", false
	}
	fields := strings.Fields(s[i+1:]) // fields[0] is field 3, the state
	if len(fields) < 20 {
		return "", "", false
	}
	return fields[0], fields[19], true
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// RemoveOwn removes the run dirs in base (default: the system temp dir) that
// this process owns, for a process about to exit without stopping its
// clusters (its components die with it), and returns them.
func RemoveOwn(base string) []string {
	base = baseDir(base)
	entries, _ := os.ReadDir(base)
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !known(e.Name()) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		data, _ := os.ReadFile(filepath.Join(dir, ownerFile))
		if fields := strings.Fields(string(data)); len(fields) > 0 && fields[0] == strconv.Itoa(os.Getpid()) {
			if Remove(dir) == nil {
				removed = append(removed, dir)
			}
		}
	}
	return removed
}

// Remove removes dir, a run dir this process made (Create), so that an
// exit part-way through leaves nothing the next sweep or `cleanup` cannot
// find. It renames dir first, keeping its prefix: work still running in
// this process (etcd, an apiserver's audit log, a node starting) then adds
// no file under the old path as it goes, which would make the removal
// fail. It removes the owner file last: until the dir is gone, RemoveOwn
// and RemoveLeftovers know whose it is.
func Remove(dir string) error {
	gone := dir + removingSuffix
	if strings.HasSuffix(dir, removingSuffix) || os.Rename(dir, gone) != nil {
		gone = dir
	}
	entries, err := os.ReadDir(gone)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var errs []error
	for _, e := range entries {
		if e.Name() != ownerFile {
			if err := os.RemoveAll(filepath.Join(gone, e.Name())); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return os.RemoveAll(gone)
}

// removingSuffix marks a run dir being removed (Remove).
const removingSuffix = ".removing"

// baseDir is where runs make their dirs: base, or the system temp dir. A
// TMPDIR pointing into a run dir is this process's own (the embedded
// cluster points it at its dir while an apiserver starts, so that
// upstream's test server writes there): the run dirs are beside it.
func baseDir(base string) string {
	if base != "" {
		return base
	}
	dir := os.TempDir()
	for known(filepath.Base(dir)) {
		dir = filepath.Dir(dir)
	}
	return dir
}
