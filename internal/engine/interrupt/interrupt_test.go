package interrupt

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestStoppingOverTheBoundSaysSo: each signal counted is acknowledged; a
// command still stopping interruptStop after the first signal says so
// once, with how many more signals exit at once; one that stopped in time
// says nothing more.
func TestStoppingOverTheBoundSaysSo(t *testing.T) {
	var mu sync.Mutex
	var out strings.Builder
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	i := Watch(func(os.Signal) { t.Error("forced after two signals") })
	i.Tell(w, 50*time.Millisecond)
	i.got(syscall.SIGTERM)
	i.got(syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	i.Stop()
	mu.Lock()
	got := out.String()
	mu.Unlock()
	if want := "interrupt 1 of 3 (SIGTERM): stopping in order; the third exits at once\n" +
		"interrupt 2 of 3 (SIGINT): the next one exits at once\n" +
		"warning: still stopping 50ms after SIGTERM (over the interruptStop bound); 1 more interrupt(s) exit at once\n"; got != want {
		t.Errorf("said %q, want %q", got, want)
	}

	out.Reset()
	i = Watch(func(os.Signal) {})
	i.Tell(w, 100*time.Millisecond)
	i.got(syscall.SIGHUP)
	i.Stop() // stopped in time
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if want := "interrupt 1 of 3 (SIGHUP): stopping in order; the third exits at once\n"; out.String() != want {
		t.Errorf("stopped in time, yet said %q", out.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
