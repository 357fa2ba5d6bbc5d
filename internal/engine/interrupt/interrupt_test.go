package interrupt

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// heldAfterStopEnv makes the test binary the command of
// TestSignalAfterStopIsHeld.
const heldAfterStopEnv = "INTERRUPT_TEST_HELD_AFTER_STOP"

func TestMain(m *testing.M) {
	if os.Getenv(heldAfterStopEnv) != "" {
		// A command that stopped its watch and is saying how it ended when
		// a signal comes: it must still say it, and exit with its code.
		i := Watch(func(os.Signal) { os.Exit(9) })
		i.Stop()
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(100 * time.Millisecond)
		fmt.Println("said how it ended")
		os.Exit(3)
	}
	if os.Getenv(forcedBesideStopEnv) != "" {
		// A command stopping in order as the third signal comes: force,
		// still removing what the command started, ends the process.
		i := Watch(func(os.Signal) {
			time.Sleep(200 * time.Millisecond)
			fmt.Println("forced")
			os.Exit(7)
		})
		go func() {
			for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGINT} {
				i.got(s)
			}
		}()
		time.Sleep(50 * time.Millisecond)
		i.Stop()
		fmt.Println("stopped in order")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// forcedBesideStopEnv makes the test binary the command of
// TestForceOwnsTheExit.
const forcedBesideStopEnv = "INTERRUPT_TEST_FORCED_BESIDE_STOP"

// TestForceOwnsTheExit: once the third signal came, the command stopping in
// order beside it does not exit before force is done.
func TestForceOwnsTheExit(t *testing.T) {
	expectCommandEnds(t, forcedBesideStopEnv, 7, "forced\n")
}

// expectCommandEnds runs this test binary as the command env names and
// expects it to exit with code after printing out, and nothing else.
func expectCommandEnds(t *testing.T, env string, code int, out string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"=1")
	got, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != code || string(got) != out {
		t.Fatalf("the command ended with %v, printing %q; want exit %d after %q", err, got, code, out)
	}
}

// TestSignalAfterStopIsHeld: a signal that comes after Stop, as the
// command prints its last line, neither kills the process by its default
// action nor counts towards the forced exit.
func TestSignalAfterStopIsHeld(t *testing.T) {
	expectCommandEnds(t, heldAfterStopEnv, 3, "said how it ended\n")
}

// TestOnSignalSeesEachCountedSignal: a subscriber (a parallel run passing
// signals on to its workers) gets every counted signal, SIGHUP while specs
// run as the SIGTERM Ginkgo gets, and the third before force; not the
// SIGTERM the watcher sends itself for Ginkgo, nor any after remove.
func TestOnSignalSeesEachCountedSignal(t *testing.T) {
	var mu sync.Mutex
	var seen []os.Signal
	forced := false
	i := Watch(func(os.Signal) {
		mu.Lock()
		forced = true
		if len(seen) != 3 {
			t.Errorf("forced having passed on %v, want the third first", seen)
		}
		mu.Unlock()
	})
	// No Stop: after a third signal force owns the exit, and Stop waits
	// for it forever (TestForceOwnsTheExit).
	remove := i.OnSignal(func(s os.Signal) { mu.Lock(); seen = append(seen, s); mu.Unlock() })
	i.RunningSpecs(true)
	i.got(syscall.SIGINT)
	i.got(syscall.SIGHUP) // the watcher also sends itself a SIGTERM, not counted
	time.Sleep(200 * time.Millisecond)
	i.got(syscall.SIGTERM)
	remove()
	i.got(syscall.SIGINT)
	mu.Lock()
	defer mu.Unlock()
	if want := []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGTERM}; fmt.Sprint(seen) != fmt.Sprint(want) || !forced {
		t.Errorf("passed on %v (forced %v), want %v then forced", seen, forced, want)
	}
}
