package childproc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain plays the roles the tests start.
func TestMain(m *testing.M) {
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

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

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
	log := &syncBuffer{}
	p, err := Start(Spec{Name: "stubborn", Role: "stubborn", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the child to start", func() bool { return strings.Contains(log.String(), "stubborn: stubborn child up") })
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
	log := &syncBuffer{}
	p, err := Start(Spec{Name: "waiter", Role: "waiter", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the child to start", func() bool { return strings.Contains(log.String(), "waiter up") })
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
