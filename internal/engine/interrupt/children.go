package interrupt

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/rundir"
)

// killChildren kills this process's children, each with its process group
// if it leads one (a parallel worker): for an exit that will not stop them
// in order (the third signal), which must not leave them running, nor
// writing into the run's dirs as it removes them (rundir.RemoveOwn renames
// a dir before removing it, so what a child still writes goes under a path
// that no longer exists). Where there is no /proc it does nothing (the
// children end when their stdin pipe closes). It returns the children it
// signalled (a killed one stays listed until it is reaped).
func killChildren() (killed []int) {
	self := os.Getpid()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		pid, ppid, pgrp, ok := procParent(f)
		if !ok || ppid != self {
			continue
		}
		if pgrp == pid {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		} else {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		killed = append(killed, pid)
	}
	return killed
}

// procParent reads a /proc/<pid>/stat file's pid, parent and process group.
func procParent(path string) (pid, ppid, pgrp int, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, 0, false
	}
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, 0, 0, false
	}
	fields := strings.Fields(s[end+1:]) // state ppid pgrp ...
	if len(fields) < 3 {
		return 0, 0, 0, false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(s[:strings.IndexByte(s, ' ')]))
	ppid, err2 := strconv.Atoi(fields[1])
	pgrp, err3 := strconv.Atoi(fields[2])
	return pid, ppid, pgrp, err1 == nil && err2 == nil && err3 == nil
}

// forceSettle bounds how long RemoveOwnDirs looks again for removed dirs
// coming back: well under the 1 s in which the third signal must exit.
const forceSettle = 200 * time.Millisecond

// RemoveOwnDirs kills the children and removes this process's run dirs,
// then looks again, for at most forceSettle, until two looks in a row see
// no new child, no new run dir and no removed dir come back: a worker that
// was starting as the signal came (missed by the first kill), or one still
// running for a moment, can re-create a removed path (its report dir and
// the shared dir are made with MkdirAll), and such a dir carries no owner
// file, so no later cleanup would know it; a cluster still starting in this
// process can make its dir after the first removal.
func RemoveOwnDirs() []string {
	killed := map[int]bool{}
	for _, pid := range killChildren() {
		killed[pid] = true
	}
	removed := rundir.RemoveOwn("")
	quiet := 0
	for deadline := time.Now().Add(forceSettle); quiet < 2 && time.Now().Before(deadline); {
		time.Sleep(forceSettle / 10)
		quiet++
		for _, pid := range killChildren() {
			if !killed[pid] {
				killed[pid] = true
				quiet = 0 // one that started after the first kill
			}
		}
		for _, d := range removed {
			if _, err := os.Lstat(d); err == nil {
				quiet = 0
				_ = os.RemoveAll(d)
			}
		}
		// And one made since (a cluster still starting makes its dir).
		if more := rundir.RemoveOwn(""); len(more) > 0 {
			quiet = 0
			removed = append(removed, more...)
		}
	}
	return removed
}
