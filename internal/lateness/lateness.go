// Package lateness measures how starved the harness itself is: a goroutine
// sleeps a fixed tick in a loop and records how much later than asked each
// wake-up came. On a busy machine the wake-ups come late, and a case that
// missed a timing bound while they did may have missed it because of the
// machine, not the implementation under test.
package lateness

import (
	"sync"
	"time"
)

// DefaultTick is the sleep between two wake-ups: short enough to see a
// starvation of a few tens of milliseconds, long enough that the monitor
// itself costs nothing measurable (50 wake-ups a second).
const DefaultTick = 20 * time.Millisecond

// Options configure a Monitor. The zero value is valid.
type Options struct {
	// Tick is the sleep between two wake-ups (DefaultTick if zero).
	Tick time.Duration
	// Keep is how far back the history must reach for windows to be
	// complete; the ring holds Keep/Tick samples (at least 16), fewer
	// seconds' worth when the wake-ups come late.
	Keep time.Duration
	// Now and Sleep replace the clock, so tests can make wake-ups late on
	// purpose. Sleep returns false when stop was closed first. Both nil
	// means the real clock.
	Now   func() time.Time
	Sleep func(d time.Duration, stop <-chan struct{}) bool
}

// Stats sum up the wake-ups in a window.
type Stats struct {
	// Max is the latest wake-up's lateness; Total the sum of all of them.
	Max, Total time.Duration
	// Samples counts the wake-ups, with one still overdue when asked.
	Samples int
	// Partial says the history no longer reaches back to the window's
	// start, so Max and Total are lower bounds.
	Partial bool
}

// sample is one wake-up: when it was due and when it came, as monotonic
// offsets from the monitor's start.
type sample struct{ due, woke time.Duration }

// Monitor is one running lateness measurement, owned by whoever started it.
// Its methods are safe for concurrent use.
type Monitor struct {
	tick  time.Duration
	now   func() time.Time
	sleep func(time.Duration, <-chan struct{}) bool
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	mu sync.Mutex
	// ring holds up to size samples in wake-up order; next is where the
	// next goes once it is full, and wrapped says samples were dropped.
	ring    []sample
	size    int
	next    int
	wrapped bool
	// pending is when the wake-up being waited for is due; sleeping says
	// there is one.
	pending  time.Duration
	sleeping bool
}

// Start starts a monitor; Stop ends it.
func Start(o Options) *Monitor {
	m := &Monitor{tick: o.Tick, now: o.Now, sleep: o.Sleep, stop: make(chan struct{}), done: make(chan struct{})}
	if m.tick <= 0 {
		m.tick = DefaultTick
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.sleep == nil {
		m.sleep = sleep
	}
	m.size = max(int(o.Keep/m.tick), 16)
	m.start = m.now()
	go m.loop()
	return m
}

// Stop ends the monitor's goroutine and waits for it; its history stays
// readable. Stopping twice is harmless.
func (m *Monitor) Stop() {
	m.once.Do(func() { close(m.stop) })
	<-m.done
}

// Tick is the monitor's sleep between two wake-ups.
func (m *Monitor) Tick() time.Duration { return m.tick }

func (m *Monitor) loop() {
	defer close(m.done)
	due := m.now().Sub(m.start)
	for {
		due += m.tick
		m.mu.Lock()
		m.pending, m.sleeping = due, true
		m.mu.Unlock()
		ok := m.sleep(m.tick, m.stop)
		woke := m.now().Sub(m.start)
		m.mu.Lock()
		m.sleeping = false
		if ok {
			m.add(sample{due: due, woke: woke})
		}
		m.mu.Unlock()
		if !ok {
			return
		}
		// The next sleep starts now: a late wake-up is counted once, not
		// again in every wake-up after it.
		due = woke
	}
}

// add keeps s, dropping the oldest sample when the ring is full. m.mu is
// held.
func (m *Monitor) add(s sample) {
	if len(m.ring) < m.size {
		m.ring = append(m.ring, s)
		return
	}
	m.ring[m.next] = s
	m.next = (m.next + 1) % m.size
	m.wrapped = true
}

// Window sums up the wake-ups whose lateness overlaps [from, to]: a
// wake-up due before to that came after from counts with its whole
// lateness, and so does one still overdue now.
func (m *Monitor) Window(from, to time.Time) Stats {
	lo, hi := from.Sub(m.start), to.Sub(m.start)
	m.mu.Lock()
	defer m.mu.Unlock()
	var st Stats
	add := func(late time.Duration) {
		late = max(late, 0)
		st.Max = max(st.Max, late)
		st.Total += late
		st.Samples++
	}
	if now := m.now().Sub(m.start); m.sleeping && m.pending <= hi && now >= lo && now > m.pending {
		add(now - m.pending)
	}
	// Newest first: wake-up times only grow, so the scan stops at the
	// first wake-up before the window.
	n := len(m.ring)
	for i := 0; i < n; i++ {
		s := m.ring[(m.next-1-i+2*n)%n]
		if s.woke < lo {
			return st
		}
		if s.due <= hi {
			add(s.woke - s.due)
		}
	}
	// Every kept sample is in the window. A dropped one was too if it came
	// at or after lo: it came when the oldest kept one was due.
	st.Partial = lo < 0 || (m.wrapped && m.ring[m.next].due >= lo)
	return st
}

// sleep waits d or until stop is closed, whichever comes first.
func sleep(d time.Duration, stop <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	}
}
