package lateness

import (
	"sync"
	"testing"
	"time"
)

const tick = 20 * time.Millisecond

// fakeClock moves only when the test says: each wake-up comes extra later
// than the tick asked for, and the clock can move while the monitor sleeps.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	steps  chan time.Duration
	asleep chan struct{}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *fakeClock) Sleep(d time.Duration, stop <-chan struct{}) bool {
	c.asleep <- struct{}{}
	select {
	case extra := <-c.steps:
		c.advance(d + extra)
		return true
	case <-stop:
		return false
	}
}

// wake lets the sleeping monitor wake extra late, and waits until it
// recorded that and sleeps again.
func (c *fakeClock) wake(extras ...time.Duration) {
	for _, e := range extras {
		c.steps <- e
		<-c.asleep
	}
}

// start starts a monitor on a fake clock and waits for its first sleep.
func start(t *testing.T, keep time.Duration) (*Monitor, *fakeClock) {
	c := &fakeClock{t: time.Unix(1000, 0), steps: make(chan time.Duration), asleep: make(chan struct{})}
	m := Start(Options{Tick: tick, Keep: keep, Now: c.Now, Sleep: c.Sleep})
	<-c.asleep
	t.Cleanup(m.Stop)
	return m, c
}

func TestLateWakeUpsAreMeasured(t *testing.T) {
	m, c := start(t, time.Minute)
	t0 := c.Now()
	c.wake(0, 340*time.Millisecond, 5*time.Millisecond)
	got := m.Window(t0, c.Now())
	want := Stats{Max: 340 * time.Millisecond, Total: 345 * time.Millisecond, Samples: 3}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestAWindowCountsTheWakeUpsWhoseLatenessOverlapsIt(t *testing.T) {
	m, c := start(t, time.Minute)
	t0 := c.Now()
	// Wake-ups at 20ms, 40ms, then one due at 60ms that comes at 160ms,
	// then 180ms and 200ms.
	c.wake(0, 0, 100*time.Millisecond, 0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, w := range []struct {
		name     string
		from, to int
		want     Stats
	}{
		{"before the late one", 0, 50, Stats{Samples: 2}},
		{"while it was overdue", 100, 110, Stats{Max: 100 * time.Millisecond, Total: 100 * time.Millisecond, Samples: 1}},
		{"ending when it was due", 30, 60, Stats{Max: 100 * time.Millisecond, Total: 100 * time.Millisecond, Samples: 2}},
		{"after it", 170, 250, Stats{Samples: 2}},
		{"all of it", 0, 250, Stats{Max: 100 * time.Millisecond, Total: 100 * time.Millisecond, Samples: 5}},
	} {
		if got := m.Window(at(w.from), at(w.to)); got != w.want {
			t.Errorf("%s [%dms, %dms]: got %+v, want %+v", w.name, w.from, w.to, got, w.want)
		}
	}
}

func TestAWakeUpStillOverdueCounts(t *testing.T) {
	m, c := start(t, time.Minute)
	t0 := c.Now()
	c.wake(0)
	c.advance(tick + 250*time.Millisecond) // the monitor is starved right now
	got := m.Window(t0, c.Now())
	if got.Max != 250*time.Millisecond || got.Samples != 2 {
		t.Fatalf("got %+v, want the overdue wake-up's 250ms among 2 samples", got)
	}
	if later := m.Window(c.Now().Add(time.Hour), c.Now().Add(2*time.Hour)); later != (Stats{}) {
		t.Fatalf("a window after now: %+v", later)
	}
}

func TestTheRingKeepsTheNewestSamples(t *testing.T) {
	m, c := start(t, 0) // 16 samples
	t0 := c.Now()
	for i := 1; i <= 40; i++ {
		c.wake(time.Duration(i) * time.Millisecond)
	}
	all := m.Window(t0, c.Now())
	if all.Samples != 16 || all.Max != 40*time.Millisecond || !all.Partial {
		t.Fatalf("the whole run after the ring wrapped: %+v, want 16 samples, max 40ms, partial", all)
	}
	// The last three: 38, 39 and 40ms late, each after its 20ms tick.
	from := c.Now().Add(-(tick + 40*time.Millisecond) - (tick + 39*time.Millisecond) - tick/2)
	last := m.Window(from, c.Now())
	if last.Samples != 3 || last.Total != (38+39+40)*time.Millisecond || last.Partial {
		t.Fatalf("the newest wake-ups: %+v, want 3 samples totalling 117ms, not partial", last)
	}
	if before := m.Window(t0.Add(-time.Second), t0); !before.Partial {
		t.Fatalf("a window before the monitor started is not complete: %+v", before)
	}
}

func TestAStoppedMonitorKeepsItsHistory(t *testing.T) {
	m, c := start(t, time.Minute)
	t0 := c.Now()
	c.wake(70 * time.Millisecond)
	m.Stop()
	m.Stop()
	if got := m.Window(t0, c.Now()); got.Max != 70*time.Millisecond || got.Samples != 1 {
		t.Fatalf("after Stop: %+v", got)
	}
}

// The real clock: a sleeper made to oversleep once shows up, and the
// monitor's own wake-ups on an idle tick are far from it.
func TestRealClockSeesAnInjectedStall(t *testing.T) {
	const stall = 150 * time.Millisecond
	var calls int
	stalled := make(chan struct{})
	t0 := time.Now()
	m := Start(Options{Tick: 5 * time.Millisecond, Sleep: func(d time.Duration, stop <-chan struct{}) bool {
		calls++
		if calls == 3 {
			d += stall
			defer close(stalled)
		}
		return sleep(d, stop)
	}})
	<-stalled
	time.Sleep(20 * time.Millisecond)
	m.Stop()
	got := m.Window(t0, time.Now())
	if got.Max < stall || got.Samples < 3 || got.Total < got.Max {
		t.Fatalf("got %+v, want a wake-up at least %s late among 3 or more", got, stall)
	}
}
