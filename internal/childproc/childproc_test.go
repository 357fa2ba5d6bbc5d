package childproc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain plays the roles and subcommands the tests start.
func TestMain(m *testing.M) {
	if os.Getenv(subcommandEnv) != "" {
		os.Exit(subcommand(os.Args[1]))
	}
	if role, _, ok := Take(); ok {
		switch role {
		case "stubborn": // ignores SIGTERM and its parent
			signal.Ignore(syscall.SIGTERM)
			fmt.Println("stubborn child up")
			for {
				time.Sleep(time.Hour)
			}
		case "waiter": // ends when its parent goes
			fmt.Println("waiter up")
			<-ParentGone().Done()
			fmt.Println("parent gone")
			os.Exit(0)
		case "fails":
			fmt.Fprintln(os.Stderr, "something went wrong")
			os.Exit(3)
		}
		os.Exit(99)
	}
	os.Exit(m.Run())
}

// syncBuffer is a buffer children write into while the test reads it.
type syncBuffer struct {
	sharedWriter
	b bytes.Buffer
}

func newSyncBuffer() *syncBuffer {
	s := &syncBuffer{}
	s.w = &s.b
	return s
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// startUntil starts a child whose Log is the returned buffer, and waits
// until that holds up.
func startUntil(t *testing.T, start func(Spec) (*Process, error), s Spec, up string) (*Process, *syncBuffer) {
	t.Helper()
	log := newSyncBuffer()
	s.Log = log
	p, err := start(s)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the child to start", func() bool { return strings.Contains(log.String(), up) })
	return p, log
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStopKillsAChildThatIgnoresSIGTERM(t *testing.T) {
	p, _ := startUntil(t, Start, Spec{Name: "stubborn", Role: "stubborn", Prefix: "stubborn: "}, "stubborn: stubborn child up")
	start := time.Now()
	if err := p.Stop(300 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 300*time.Millisecond {
		t.Errorf("stopped after %s, before the grace period: SIGTERM was not ignored?", elapsed)
	}
	select {
	case <-p.Exited():
	default:
		t.Fatal("Stop returned before the child was reaped")
	}
	if err := syscall.Kill(p.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("child %d still exists: %v", p.Pid(), err)
	}
}

func TestChildEndsWhenItsStdinCloses(t *testing.T) {
	p, log := startUntil(t, Start, Spec{Name: "waiter", Role: "waiter", Prefix: "waiter: "}, "waiter up")
	_ = p.stdin.Close() // what the parent's death does
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("child did not end when its stdin closed")
	}
	if !strings.Contains(log.String(), "waiter: parent gone") {
		t.Errorf("log: %q", log.String())
	}
}

func TestExitErrorCarriesTheLastOutput(t *testing.T) {
	p, err := Start(Spec{Name: "fails", Role: "fails"})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Exited()
	if err := p.ExitError(); err == nil || !strings.Contains(err.Error(), "something went wrong") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("exit error: %v", err)
	}
}

func TestAChildCannotStartChildren(t *testing.T) {
	t.Setenv(RoleEnv, "hollow-node")
	if _, err := Start(Spec{Name: "x", Role: "waiter"}); !errors.Is(err, errIsChild) {
		t.Errorf("got %v, want %v", err, errIsChild)
	}
}
