package parallel

import (
	"context"
	"slices"
	"sync"

	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Schedule runs units with up to workers at a time and returns the indexes
// of the units it never started (ctx ended first). run executes one unit
// and returns when its worker has exited.
//
// A unit holding a state (spec.Isolation.Exclusive) runs beside no unit
// naming that state; a unit sharing one (Shares) runs beside others sharing
// it, never beside its holder. The holders of a state run back to back,
// then its sharers together (a sharer starts once no holder is left), since
// every holder waits for every sharer running. A unit needing nodes waits
// until nodesReady is closed (nil: ready now). Serial units run after all
// others, one at a time, with nothing beside them (but serial units holding
// a node run beside each other, each on its own); those that need no node
// run first instead while the nodes start. Among the units that may
// start, the one at the head of the longest chain of holders goes first,
// then the longest (see priority).
//
// With nodeSlots > 1 (several alike nodes) up to that many units hold
// spec.NodesState at once, each given a node of its own (Unit.NodeSlot):
// holding the nodes state means holding one node.
func Schedule(ctx context.Context, units []Unit, workers, nodeSlots int, nodesReady <-chan struct{}, run func(Unit)) (notStarted []int) {
	workers = max(1, workers)
	nodeSlots = max(1, nodeSlots)
	capacity := func(s string) int {
		if s == spec.NodesState {
			return nodeSlots
		}
		return 1
	}
	if nodesReady == nil {
		ready := make(chan struct{})
		close(ready)
		nodesReady = ready
	}
	var pending, serial []int
	for i, u := range units {
		if u.Serial() {
			serial = append(serial, i)
		} else {
			pending = append(pending, i)
		}
	}
	held := map[string]int{}   // running units holding each state
	shared := map[string]int{} // running units sharing each state
	holdersLeft := map[string]int{}
	slotBusy := make([]bool, nodeSlots)
	slotOf := map[int]int{}
	finished := make(chan int)
	running := 0
	start := func(i int) {
		running++
		u := units[i]
		for _, s := range u.holds() {
			held[s]++
			if s == spec.NodesState {
				u.NodeSlot = slices.Index(slotBusy, false)
				slotBusy[u.NodeSlot], slotOf[i] = true, u.NodeSlot
			}
		}
		for _, s := range u.shares() {
			shared[s]++
		}
		go func() {
			run(u)
			finished <- i
		}()
	}
	release := func(i int) {
		running--
		for _, s := range units[i].holds() {
			held[s]--
			holdersLeft[s]--
			if s == spec.NodesState {
				slotBusy[slotOf[i]] = false
				delete(slotOf, i)
			}
		}
		for _, s := range units[i].shares() {
			shared[s]--
		}
	}
	nodesUp := func() bool {
		select {
		case <-nodesReady:
			return true
		default:
			return false
		}
	}
	// holdersLeft counts, per state, the units holding it that have not
	// finished: while some are left, no sharer of the state starts, so the
	// holders run back to back and the sharers together after them.
	for _, i := range pending {
		for _, s := range units[i].holds() {
			holdersLeft[s]++
		}
	}
	// While the nodes start, the serial units that need none run first,
	// one at a time: nothing that needs the nodes could run meanwhile
	// anyway, and the run's longest path is the nodes' specs after them.
	for _, i := range priority(units, serial) {
		if nodesUp() || ctx.Err() != nil {
			break
		}
		if units[i].NeedsNodes {
			continue
		}
		start(i)
		release(<-finished)
		serial = slices.DeleteFunc(serial, func(j int) bool { return j == i })
	}
	for len(pending) > 0 {
		if ctx.Err() != nil {
			for running > 0 {
				release(<-finished)
			}
			return append(pending, serial...)
		}
		// One pass in priority order over what may start now.
		reserved := map[string]bool{}
		started, waitForNodes := false, false
		for _, i := range priority(units, pending) {
			if running >= workers {
				break
			}
			if units[i].NeedsNodes && !nodesUp() {
				waitForNodes = true
				continue
			}
			free := true
			for _, s := range units[i].holds() {
				if held[s] >= capacity(s) || shared[s] > 0 || reserved[s] {
					free = false
				}
			}
			for _, s := range units[i].shares() {
				if held[s] > 0 || reserved[s] || holdersLeft[s] > 0 {
					free = false
				}
			}
			if !free {
				for _, s := range units[i].holds() {
					reserved[s] = true // it goes next: no new sharer meanwhile
				}
				continue
			}
			start(i)
			pending = slices.DeleteFunc(pending, func(j int) bool { return j == i })
			started = true
		}
		if started {
			continue // what started may let nothing else start: look again
		}
		ready := nodesReady
		if !waitForNodes {
			ready = nil
		}
		if running == 0 && ready == nil {
			// Nothing runs and nothing waits for the nodes, yet nothing may
			// start: cannot happen (a unit alone always may); guard anyway.
			i := priority(units, pending)[0]
			start(i)
			pending = slices.DeleteFunc(pending, func(j int) bool { return j == i })
			continue
		}
		select {
		case i := <-finished:
			release(i)
		case <-ready:
		case <-ctx.Done():
		}
	}
	for running > 0 {
		release(<-finished)
	}
	order := priority(units, serial)
	for len(order) > 0 {
		if units[order[0]].NeedsNodes && !nodesUp() {
			select {
			case <-nodesReady:
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			return order
		}
		// Serial units holding a node each run beside the others that
		// do, up to one per node: each binds its pods to its own node
		// and nothing else runs that could place a pod there.
		together := []int{order[0]}
		if holdsNode(units[order[0]]) {
			for _, j := range order[1:] {
				if len(together) < nodeSlots && holdsNode(units[j]) {
					together = append(together, j)
				}
			}
		}
		for _, i := range together {
			start(i)
		}
		for range together {
			release(<-finished)
		}
		order = slices.DeleteFunc(order, func(i int) bool { return slices.Contains(together, i) })
	}
	return nil
}

// holdsNode reports whether the unit holds one of the nodes (the nodes
// state, exclusively).
func holdsNode(u Unit) bool { return slices.Contains(u.holds(), spec.NodesState) }

// ScheduleWithPlanes is Schedule for a run with propagation planes: the
// units on a plane (Unit.Plane) run there with up to planeWorkers at a
// time, beside the cluster's units (Plane 0), which Schedule runs with up
// to workers, and beside the other planes'. A plane is another control
// plane: a serial unit runs alone among the cluster's units, while the
// planes' go on. It returns the indexes of the units never started.
func ScheduleWithPlanes(ctx context.Context, units []Unit, workers, planeWorkers, nodeSlots int, nodesReady <-chan struct{}, run func(Unit)) (notStarted []int) {
	groups := map[int][]int{} // plane -> indexes of its units
	for i, u := range units {
		groups[u.Plane] = append(groups[u.Plane], i)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for plane, idx := range groups {
		group := make([]Unit, len(idx))
		for k, i := range idx {
			group[k] = units[i]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var never []int
			if plane == 0 {
				never = Schedule(ctx, group, workers, nodeSlots, nodesReady, run)
			} else {
				never = Schedule(ctx, group, planeWorkers, 1, nil, run)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, k := range never {
				notStarted = append(notStarted, idx[k])
			}
		}()
	}
	wg.Wait()
	slices.Sort(notStarted)
	return notStarted
}
