package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
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
// at its third.
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
	i.mu.Unlock()
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
