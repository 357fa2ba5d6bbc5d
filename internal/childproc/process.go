package childproc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Process is a running child.
type Process struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser // nil without the parent-death pipe
	out   *output        // nil with Spec.File
	file  string         // Spec.File's name
	done  chan struct{}
	exit  Exit // set before done closes
}

// Exit says how a child ended.
type Exit struct {
	// Code is its exit code; -1 when a signal ended it (Killed) or it
	// could not be waited for.
	Code   int
	Killed bool
	// Status says it in words: "exit status 2", "signal: killed", or why
	// it could not be waited for.
	Status string
	// Err is what waiting returned: nil after exit code 0.
	Err error
}

// Start starts the child. Callers must Stop it, or Wait for it.
func Start(s Spec) (*Process, error) {
	return start(s, nil)
}

// start starts the child, in group if not nil (whose lock the caller
// holds).
func start(s Spec, group *Group) (*Process, error) {
	if err := checkNotChild(); err != nil {
		return nil, err
	}
	cmd, stdin, err := s.command()
	if err != nil {
		return nil, err
	}
	p := &Process{name: s.Name, cmd: cmd, stdin: stdin, done: make(chan struct{})}
	var streams []*lineWriter
	if s.File != nil {
		cmd.Stdout, cmd.Stderr = s.File, s.File
		p.file = s.File.Name()
	} else {
		p.out = newOutput(s)
		streams = []*lineWriter{p.out.stream(false), p.out.stream(true)}
		cmd.Stdout, cmd.Stderr = streams[0], streams[1]
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start: %w", s.Name, err)
	}
	recordStarted(p, s.OwnGroup)
	if group != nil {
		group.add(p)
	}
	go func() {
		err := cmd.Wait() // returns once both streams are copied
		for _, w := range streams {
			w.flush()
		}
		p.exit = exitOf(cmd, err)
		recordReaped(p)
		if group != nil {
			group.remove(p)
		}
		close(p.done)
	}()
	return p, nil
}

// exitOf is how a waited-for child ended.
func exitOf(cmd *exec.Cmd, err error) Exit {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return Exit{Code: 0, Status: cmd.ProcessState.String()}
	case errors.As(err, &ee):
		return Exit{Code: ee.ExitCode(), Killed: ee.ExitCode() < 0, Status: ee.String(), Err: err}
	default:
		return Exit{Code: -1, Status: err.Error(), Err: err}
	}
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the child has exited, been reaped and its output
// passed on.
func (p *Process) Exited() <-chan struct{} { return p.done }

// Wait waits until the child has exited and says how.
func (p *Process) Wait() Exit {
	<-p.done
	return p.exit
}

// ExitError says how the child ended, with the last lines it printed; nil
// while it runs.
func (p *Process) ExitError() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	return fmt.Errorf("%s exited (%s); last output: %s", p.name, p.exit.Status, p.Tail(tailLines))
}

// ExitStatus says how the child ended ("exit status 2", "signal: killed"),
// or "" while it runs.
func (p *Process) ExitStatus() string {
	select {
	case <-p.done:
		return p.exit.Status
	default:
		return ""
	}
}

// Tail is the last n lines the child printed (blank ones left out), on
// one line, or "(none)".
func (p *Process) Tail(n int) string {
	var lines []string
	if p.out != nil {
		lines = p.out.lastLines(n)
	} else {
		lines = fileTail(p.file, n)
	}
	if len(lines) == 0 {
		return "(none)"
	}
	return strings.Join(lines, " | ")
}

// ErrorLine is the last line of stderr that started with
// Spec.ErrorPrefix, without it ("" if none).
func (p *Process) ErrorLine() string {
	if p.out == nil {
		return ""
	}
	return p.out.lastError()
}

// Signal sends sig to the child itself, not to its process group: a child
// that stops in order passes it on to its own children as it sees fit (a
// target's run to its workers; its kind and docker commands, on which it
// waits, get none).
func (p *Process) Signal(sig os.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	return nil
}

// Stop asks the child to end (closing its stdin, then SIGTERM), kills it
// after grace, and waits until it is reaped. It is safe to call more than
// once.
func (p *Process) Stop(grace time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if p.stdin != nil {
		_ = p.stdin.Close()
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s: kill: %w", p.name, err)
	}
	<-p.done
	return nil
}
