package childproc

import (
	"errors"
	"os"
	"sync"
)

// Group is the running children a parent passes its signals on to (a
// parallel run's workers, a matrix's targets). The zero Group is ready.
type Group struct {
	mu      sync.Mutex
	running map[*Process]bool
	// signalled: a signal was passed on; no child starts after it.
	signalled bool
}

// ErrSignalled is Start's after Signal: the child was not started, since
// it would have missed the signal.
var ErrSignalled = errors.New("not started: the parent was signalled")

// Start starts a child as Start does and keeps it in the group until it
// has exited.
func (g *Group) Start(s Spec) (*Process, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.signalled {
		return nil, ErrSignalled
	}
	return start(s, g)
}

// add keeps a child that has just started; g.mu is held (Start).
func (g *Group) add(p *Process) {
	if g.running == nil {
		g.running = map[*Process]bool{}
	}
	g.running[p] = true
}

// remove lets go of a child that has exited, before its Wait returns.
func (g *Group) remove(p *Process) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, p)
}

// Signal passes sig on to every running child, once each: they stop in
// order on their own. Children started in the meantime are refused.
func (g *Group) Signal(sig os.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.signalled = true
	for p := range g.running {
		_ = p.Signal(sig)
	}
}

// Running is how many children have not exited yet.
func (g *Group) Running() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.running)
}
