package quiet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Gate is one process's side of a run's quiet windows. A gate without a
// directory (Local) holds nothing, for a run whose cases run one at a time in one process,
// but still tells when a kind was last written (LastWrite).
type Gate struct {
	dir      string
	interval time.Duration

	mu   sync.Mutex
	held map[Kind]bool
	last map[Kind]time.Time // this process's last write of each kind
}

// Local returns a gate for a process that runs every case of its run.
func Local() *Gate { return &Gate{held: map[Kind]bool{}, last: map[Kind]time.Time{}} }

// Open returns the gate on dir, which every process of the run shares;
// interval is how often a waiting lock is tried again.
func Open(dir string, interval time.Duration) (*Gate, error) {
	if interval <= 0 {
		return nil, fmt.Errorf("quiet gate: poll interval %s is not positive", interval)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("quiet gate: %w", err)
	}
	return &Gate{dir: dir, interval: interval, held: map[Kind]bool{}, last: map[Kind]time.Time{}}, nil
}

func (g *Gate) path(name string) string { return filepath.Join(g.dir, name) }

// Hold waits until no write of the kinds is in flight in any process of the
// run, then keeps every other process's writes of those kinds waiting until
// release is called. This process's own writes pass, of any kind: a holder
// never waits for another holder's kind, so two holders cannot wait for
// each other (a holder writing a kind another holds disturbs that window;
// the specs measuring a kind write no other).
func (g *Gate) Hold(ctx context.Context, kinds ...Kind) (_ func() error, err error) {
	if g.dir == "" || len(kinds) == 0 {
		return func() error { return nil }, nil
	}
	kinds = slices.Clone(kinds)
	slices.Sort(kinds)
	kinds = slices.Compact(kinds)
	var locks []*lockFile
	release := func() error {
		g.mu.Lock()
		for _, k := range kinds {
			delete(g.held, k)
		}
		g.mu.Unlock()
		var errs []error
		for _, l := range slices.Backward(locks) {
			errs = append(errs, l.unlock(), l.close())
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			_ = release()
		}
	}()
	// Kinds are taken in one order, so two holders never wait for each
	// other's kinds.
	for _, name := range lockNames(kinds) {
		l, err := openLock(g.path(name))
		if err != nil {
			return nil, err
		}
		locks = append(locks, l)
		if err := l.lock(ctx, true, g.interval); err != nil {
			return nil, err
		}
	}
	g.mu.Lock()
	for _, k := range kinds {
		g.held[k] = true
	}
	g.mu.Unlock()
	return release, nil
}

func lockNames(kinds []Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k) + ".lock"
	}
	return out
}

// LastWrite is when a write of the kind by any process of the run last
// completed (zero if none did). A case that measures the kind waits until
// the notifications those writes cause have surely arrived before it
// changes anything: an earlier write's late notification would otherwise
// make the apiserver re-read its configurations just after the case's own
// change and hide that change's own late notification. The time is the
// wall clock (it is shared between processes through a file's
// modification time), used to wait, never to measure.
func (g *Gate) LastWrite(k Kind) time.Time {
	g.mu.Lock()
	last := g.last[k]
	g.mu.Unlock()
	if g.dir != "" {
		if fi, err := os.Stat(g.path(lockNames([]Kind{k})[0])); err == nil && fi.ModTime().After(last) {
			last = fi.ModTime()
		}
	}
	return last
}

// wrote notes a completed write of the kind, for every process of the run.
func (g *Gate) wrote(k Kind) {
	now := time.Now()
	g.mu.Lock()
	g.last[k] = now
	g.mu.Unlock()
	if g.dir != "" {
		// Best effort: a missed time only shortens another case's wait.
		_ = os.Chtimes(g.path(lockNames([]Kind{k})[0]), now, now)
	}
}

// holding reports whether this process holds a quiet window.
func (g *Gate) holding() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.held) > 0
}

// Wrap returns rt with every configuration write waiting while another
// process holds its kind (for rest.Config.Wrap).
func (g *Gate) Wrap(rt http.RoundTripper) http.RoundTripper {
	return &roundTripper{gate: g, next: rt}
}

type roundTripper struct {
	gate *Gate
	next http.RoundTripper
}

func (t *roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	k := kindOfWrite(r)
	if k == "" {
		return t.next.RoundTrip(r)
	}
	// The write is complete on the server once its response headers are
	// read, so neither the lock nor the time waits for the body. The time
	// is noted before the lock is released, so a holder that takes the lock
	// next sees it.
	if t.gate.dir == "" || t.gate.holding() {
		defer t.gate.wrote(k)
		return t.next.RoundTrip(r)
	}
	l, err := openLock(t.gate.path(lockNames([]Kind{k})[0]))
	if err != nil {
		return nil, err
	}
	defer l.close()
	if err := l.lock(r.Context(), false, t.gate.interval); err != nil {
		return nil, err
	}
	defer l.unlock()
	defer t.gate.wrote(k)
	return t.next.RoundTrip(r)
}
