// Package interrupt holds SIGINT, SIGTERM and SIGHUP for the whole of a
// command (a run, in every phase; an in-cluster run; a matrix; cleanup), so
// that none of them ends the process before what it started is stopped and
// its files removed.
package interrupt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Watcher holds SIGINT, SIGTERM and SIGHUP for the whole of a run, so
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
// It is the one owner of these signals in a command: code that must act on
// each one (a parallel run passing it on to its workers) subscribes
// (OnSignal) instead of asking for them itself.
//
// The third signal ends the process at once (force), as Ginkgo bails out
// at its third. Each signal counted is acknowledged, and a command still
// stopping in order when the interruptStop bound has passed since the
// first says so (Tell): a process starved of CPU (many nodes starting)
// may take signals late, and Go merges a signal that comes again before
// the first is taken, so users see what was counted.
type Watcher struct {
	ch chan os.Signal
	// Ctx is cancelled at the first signal.
	Ctx    context.Context
	cancel context.CancelFunc
	// Again is cancelled at the second signal (an in-cluster run stops
	// waiting for its pod to wind down).
	Again       context.Context
	cancelAgain context.CancelFunc
	force       func(os.Signal)
	done        chan struct{}
	stopOnce    sync.Once

	mu        sync.Mutex
	handlers  map[int]func(os.Signal) // OnSignal's, by subscription
	nextID    int
	stopped   bool // Stop was called: signals are held, not counted
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

// Watch holds the signals until Stop; force runs at the third, and must
// end the process.
func Watch(force func(os.Signal)) *Watcher {
	i := &Watcher{ch: make(chan os.Signal, 8), force: force, done: make(chan struct{})}
	i.Ctx, i.cancel = context.WithCancel(context.Background())
	i.Again, i.cancelAgain = context.WithCancel(context.Background())
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

func (i *Watcher) got(s os.Signal) {
	i.mu.Lock()
	if i.stopped {
		i.mu.Unlock()
		return // the command is saying how it ended, and exiting
	}
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
	seen := s
	if i.specs && s == syscall.SIGHUP {
		seen = syscall.SIGTERM // as Ginkgo sees it
	}
	handlers := make([]func(os.Signal), 0, len(i.handlers))
	for _, h := range i.handlers {
		handlers = append(handlers, h)
	}
	i.mu.Unlock()
	if w != nil {
		switch n {
		case 1:
			fmt.Fprintf(w, "interrupt 1 of 3 (%s): stopping in order; the third exits at once\n", SignalName(s))
		case 2:
			fmt.Fprintf(w, "interrupt 2 of 3 (%s): the next one exits at once\n", SignalName(s))
		}
	}
	i.cancel()
	if n >= 2 {
		i.cancelAgain()
	}
	for _, h := range handlers {
		h(seen)
	}
	if forward {
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
	if n >= 3 {
		i.force(first)
	}
}

// Tell makes the command acknowledge on w each signal it counts and say,
// bound (interruptStop) after the first, that it is still stopping and
// how to end it at once.
func (i *Watcher) Tell(w io.Writer, bound time.Duration) {
	i.mu.Lock()
	i.bound, i.warn = bound, w
	i.mu.Unlock()
}

func (i *Watcher) stillStopping() {
	i.mu.Lock()
	first, n, w, bound := i.first, i.count, i.warn, i.bound
	i.mu.Unlock()
	if n >= 3 {
		return
	}
	fmt.Fprintf(w, "warning: still stopping %s after %s (over the interruptStop bound); %d more interrupt(s) exit at once\n",
		bound, SignalName(first), 3-n)
}

// OnSignal calls f with every signal counted from now until remove is
// called, each before the third ends the process: SIGINT and SIGTERM as
// they came, SIGHUP while specs run as the SIGTERM Ginkgo is given for it.
// f runs on the watcher's goroutine and must not block.
func (i *Watcher) OnSignal(f func(os.Signal)) (remove func()) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.handlers == nil {
		i.handlers = map[int]func(os.Signal){}
	}
	id := i.nextID
	i.nextID++
	i.handlers[id] = f
	return func() {
		i.mu.Lock()
		delete(i.handlers, id)
		i.mu.Unlock()
	}
}

// RunningSpecs says whether Ginkgo runs specs now.
func (i *Watcher) RunningSpecs(on bool) {
	i.mu.Lock()
	i.specs = on
	i.mu.Unlock()
}

// Received is the first signal, or nil.
func (i *Watcher) Received() os.Signal {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.first
}

// exitGrace is how long Stop still holds the signals. Stop comes as a
// command returns, before it says how it ended (the error line, the exit
// code): a second signal taken then by its default action ended the
// process silently, killed by the signal (the cleanup command, stopped in
// order 0.01 s after a first SIGINT, was ended so by the second).
const exitGrace = time.Second

// Stop ends the watch: a signal from now on is held, not counted, so that
// the command can say how it ended and exit; exitGrace later (a process
// that lives on, a test's) the signals get back their default action.
//
// Once the third signal came, force owns the exit: Stop never returns, so
// that the command, stopping in order beside it, does not exit while force
// still removes what it started (a third signal as a cluster's start rolled
// back: the command exited in order with force half-way through removing
// the cluster's dir, which stayed).
func (i *Watcher) Stop() {
	i.mu.Lock()
	if i.overdue != nil {
		i.overdue.Stop()
	}
	i.stopped = true
	forcing := i.count >= 3 // force owns the exit
	i.mu.Unlock()
	if forcing {
		select {} // force ends the process
	}
	i.cancel()
	i.cancelAgain()
	i.stopOnce.Do(func() {
		time.AfterFunc(exitGrace, func() {
			signal.Stop(i.ch)
			close(i.done)
		})
	})
}

// SignalName spells a signal as users know it.
func SignalName(s os.Signal) string {
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
