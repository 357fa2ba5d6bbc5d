package childproc

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// subcommandEnv makes the test binary play a subcommand (its first
// argument), as `run --options FILE` is one of run-conformance.
const subcommandEnv = "CHILDPROC_TEST_SUBCOMMAND"

func subcommand(name string) int {
	switch name {
	case "fails": // a run that says why it failed, as run-conformance does
		fmt.Println("out one")
		fmt.Fprintln(os.Stderr, "run-conformance: not this one")
		fmt.Print("out two, unfinished")
		fmt.Fprintln(os.Stderr, "run-conformance: the reason")
		fmt.Fprintln(os.Stderr, "a last word")
		return 5
	case "interruptible": // stops in order on SIGINT
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, syscall.SIGINT)
		fmt.Println("up")
		<-ch
		time.Sleep(200 * time.Millisecond) // any second copy would come now
		fmt.Printf("interrupted, %d more\n", len(ch))
		return 7
	case "until-parent-gone":
		fmt.Println("up")
		UntilParentGone()
		fmt.Println("parent gone")
		return 0
	}
	return 99
}

func subcommandSpec(name string) Spec {
	return Spec{Name: name, Args: []string{name}, Env: []string{subcommandEnv + "=1"}}
}

func TestSubcommandOutputIsPrefixedCopiedAndExplainsTheFailure(t *testing.T) {
	log, copied := newSyncBuffer(), newSyncBuffer()
	s := subcommandSpec("fails")
	s.Log, s.Prefix, s.Copy, s.ErrorPrefix = log, "[t] ", copied, "run-conformance: "
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	exit := p.Wait()
	if exit.Code != 5 || exit.Killed || exit.Status != "exit status 5" || exit.Err == nil {
		t.Errorf("exit: %+v", exit)
	}
	if got := p.ErrorLine(); got != "the reason" {
		t.Errorf("error line %q", got)
	}
	for _, want := range []string{"[t] out one\n", "[t] out two, unfinished\n", "[t] run-conformance: the reason\n", "[t] a last word\n"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if strings.Contains(copied.String(), "[t]") || !strings.Contains(copied.String(), "out one\n") {
		t.Errorf("copy:\n%s", copied.String())
	}
	if got := p.Tail(20); !strings.Contains(got, "a last word") || strings.Count(got, " | ") != 4 { // the five lines, in the order the two streams were read
		t.Errorf("tail %q", got)
	}
}

func TestGroupPassesASignalOnOnceAndStartsNothingAfterIt(t *testing.T) {
	var g Group
	s := subcommandSpec("interruptible")
	s.OwnGroup = true
	p, log := startUntil(t, g.Start, s, "up")
	if pgid, err := syscall.Getpgid(p.Pid()); err != nil || pgid != p.Pid() {
		t.Errorf("process group %d (%v), want its own (%d)", pgid, err, p.Pid())
	}
	if g.Running() != 1 {
		t.Errorf("running: %d", g.Running())
	}
	g.Signal(syscall.SIGINT)
	if exit := p.Wait(); exit.Code != 7 {
		t.Errorf("exit: %+v; output:\n%s", exit, log.String())
	}
	if !strings.Contains(log.String(), "interrupted, 0 more") {
		t.Errorf("output:\n%s", log.String())
	}
	if g.Running() != 0 {
		t.Errorf("running after exit: %d", g.Running())
	}
	if _, err := g.Start(s); !errors.Is(err, ErrSignalled) {
		t.Errorf("start after the signal: %v", err)
	}
}

func TestFileOutputIsTheChildsOwnAndEndsWithTheParent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := subcommandSpec("until-parent-gone")
	s.File, s.EndWithParent = f, true
	p, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the child to start", func() bool { data, _ := os.ReadFile(path); return strings.Contains(string(data), "up") })
	_ = p.stdin.Close() // what the parent's death does
	select {
	case <-p.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("child did not end when its stdin closed")
	}
	if exit := p.Wait(); exit.Code != 0 || exit.Err != nil {
		t.Errorf("exit: %+v", exit)
	}
	if got := p.Tail(8); got != "up | parent gone" {
		t.Errorf("tail %q", got)
	}
}

func TestSpecMistakesAreErrors(t *testing.T) {
	s := subcommandSpec("fails")
	s.File, s.Log = os.Stdout, os.Stdout
	if _, err := Start(s); !errors.Is(err, errOutput) {
		t.Errorf("file and log: %v", err)
	}
	if _, err := Start(Spec{Name: "neither"}); err == nil {
		t.Error("no role nor arguments: started")
	}
}
