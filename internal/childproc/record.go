package childproc

import (
	"sync"
	"syscall"
)

// started is the record of every child this process started that has not
// been reaped yet: what KillAll kills.
var started struct {
	mu    sync.Mutex
	procs map[*Process]bool // true: leads its own process group (OwnGroup)
}

func recordStarted(p *Process, ownGroup bool) {
	started.mu.Lock()
	defer started.mu.Unlock()
	if started.procs == nil {
		started.procs = map[*Process]bool{}
	}
	started.procs[p] = ownGroup
}

func recordReaped(p *Process) {
	started.mu.Lock()
	defer started.mu.Unlock()
	delete(started.procs, p)
}

// KillAll kills (SIGKILL) every child this process started and has not
// reaped yet, with its process group if it leads one (OwnGroup: a parallel
// worker's or a matrix target's own children go too), and returns their
// pids. It is for an exit that will not stop them in order (the third
// signal), which must not leave them running, nor writing into the run's
// dirs as it removes them. A killed child stays recorded until it is
// reaped.
func KillAll() (killed []int) {
	started.mu.Lock()
	defer started.mu.Unlock()
	for p, ownGroup := range started.procs {
		pid := p.Pid()
		if ownGroup {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		} else {
			_ = p.cmd.Process.Kill()
		}
		killed = append(killed, pid)
	}
	return killed
}
