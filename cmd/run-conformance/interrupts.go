package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/rundir"
)

// interrupts holds SIGINT, SIGTERM and SIGHUP for the whole of a run, so
// that none of them ends the process before the cluster is stopped and its
// files removed:
//
//   - during cluster start-up the first one cancels the start, which rolls
//     back;
//   - while specs run, Ginkgo's own handler sees SIGINT and SIGTERM too and
//     stops the specs, running their cleanups; SIGHUP, which Ginkgo does not
//     watch, is passed on to it as a SIGTERM;
//   - during tear-down and report writing it is noted, and the run ends as
//     interrupted once they are done.
//
// The third signal ends the process at once (force), as Ginkgo bails out
// at its third. Each signal counted is acknowledged, and a command still
// stopping in order when the interruptStop bound has passed since the
// first says so (tell): a process starved of CPU (many nodes starting)
// may take signals late, and Go merges a signal that comes again before
// the first is taken, so users see what was counted.
type interrupts struct {
	ch     chan os.Signal
	ctx    context.Context // cancelled at the first signal
	cancel context.CancelFunc
	// again is cancelled at the second signal (an in-cluster run stops
	// waiting for its pod to wind down).
	again       context.Context
	cancelAgain context.CancelFunc
	force       func(os.Signal)
	done        chan struct{}

	mu        sync.Mutex
	first     os.Signal
	count     int
	specs     bool // Ginkgo runs specs
	forwarded int  // SIGTERMs sent to ourselves for Ginkgo
	// bound and warn: see tell; overdue fires bound after the first
	// signal.
	bound   time.Duration
	warn    io.Writer
	overdue *time.Timer
}

func watchInterrupts(force func(os.Signal)) *interrupts {
	i := &interrupts{ch: make(chan os.Signal, 8), force: force, done: make(chan struct{})}
	i.ctx, i.cancel = context.WithCancel(context.Background())
	i.again, i.cancelAgain = context.WithCancel(context.Background())
	signal.Notify(i.ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		for {
			select {
			case s := <-i.ch:
				i.got(s)
			case <-i.done:
				return
			}
		}
	}()
	return i
}

func (i *interrupts) got(s os.Signal) {
	i.mu.Lock()
	if s == syscall.SIGTERM && i.forwarded > 0 {
		i.forwarded-- // our own, for Ginkgo
		i.mu.Unlock()
		return
	}
	i.count++
	if i.first == nil {
		i.first = s
	}
	n, first := i.count, i.first
	forward := i.specs && s == syscall.SIGHUP
	if forward {
		i.forwarded++
	}
	if n == 1 && i.bound > 0 && i.warn != nil {
		i.overdue = time.AfterFunc(i.bound, i.stillStopping)
	}
	w := i.warn
	i.mu.Unlock()
	if w != nil {
		switch n {
		case 1:
			fmt.Fprintf(w, "interrupt 1 of 3 (%s): stopping in order; the third exits at once\n", signalName(s))
		case 2:
			fmt.Fprintf(w, "interrupt 2 of 3 (%s): the next one exits at once\n", signalName(s))
		}
	}
	i.cancel()
	if n >= 2 {
		i.cancelAgain()
	}
	if forward {
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
	if n >= 3 {
		i.force(first)
	}
}

// tell makes the command acknowledge on w each signal it counts and say,
// bound (interruptStop) after the first, that it is still stopping and
// how to end it at once.
func (i *interrupts) tell(w io.Writer, bound time.Duration) {
	i.mu.Lock()
	i.bound, i.warn = bound, w
	i.mu.Unlock()
}

func (i *interrupts) stillStopping() {
	i.mu.Lock()
	first, n, w, bound := i.first, i.count, i.warn, i.bound
	i.mu.Unlock()
	if n >= 3 {
		return
	}
	fmt.Fprintf(w, "warning: still stopping %s after %s (over the interruptStop bound); %d more interrupt(s) exit at once\n",
		bound, signalName(first), 3-n)
}

// runningSpecs says whether Ginkgo runs specs now.
func (i *interrupts) runningSpecs(on bool) {
	i.mu.Lock()
	i.specs = on
	i.mu.Unlock()
}

// received is the first signal, or nil.
func (i *interrupts) received() os.Signal {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.first
}

// stop gives the signals back their default action.
func (i *interrupts) stop() {
	i.mu.Lock()
	if i.overdue != nil {
		i.overdue.Stop()
	}
	i.mu.Unlock()
	signal.Stop(i.ch)
	close(i.done)
	i.cancel()
	i.cancelAgain()
}

// signalName spells a signal as users know it.
func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

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

// forceSettle bounds how long removeOwnDirs looks again for removed dirs
// coming back: well under the 1 s in which the third signal must exit.
const forceSettle = 200 * time.Millisecond

// removeOwnDirs kills the children and removes this process's run dirs,
// then looks again, for at most forceSettle, until two looks in a row see
// no new child, no new run dir and no removed dir come back: a worker that
// was starting as the signal came (missed by the first kill), or one still
// running for a moment, can re-create a removed path (its report dir and
// the shared dir are made with MkdirAll), and such a dir carries no owner
// file, so no later cleanup would know it; a cluster still starting in this
// process can make its dir after the first removal.
func removeOwnDirs() []string {
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
