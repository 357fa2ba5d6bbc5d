package childproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spec says which child to start.
type Spec struct {
	// Name prefixes the child's output lines in Log, e.g. "node-0".
	Name string
	Role string
	// Config is the path of the role's configuration file.
	Config string
	// Log receives the child's stdout and stderr, line by line.
	Log io.Writer
	// Env is added to the child's environment.
	Env []string
}

// Process is a running child.
type Process struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	err   error // set before done closes
	tail  *tail
}

// Start starts the child. Callers must Stop it.
func Start(s Spec) (*Process, error) {
	if err := checkNotChild(); err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%s: find own executable: %w", s.Name, err)
	}
	// The argument is never read by a binary that calls RunIfChild; one that
	// does not fails on it at once (unknown flag or command) instead of
	// running the harness again.
	cmd := exec.Command(exe, "-admission-conformance-child="+s.Role)
	cmd.Env = append(append(os.Environ(), RoleEnv+"="+s.Role, ConfigEnv+"="+s.Config), s.Env...)
	// No parent-death signal: Linux sends it when the starting thread ends,
	// which in Go can be long before the process does. The stdin pipe ends
	// the child when the parent process dies.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	log := s.Log
	if log == nil {
		log = io.Discard
	}
	p := &Process{name: s.Name, cmd: cmd, stdin: stdin, done: make(chan struct{}), tail: &tail{max: 20}}
	out := &lineWriter{prefix: s.Name + ": ", w: log, tail: p.tail}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start: %w", s.Name, err)
	}
	go func() {
		p.err = cmd.Wait()
		out.flush()
		close(p.done)
	}()
	return p, nil
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the child has exited and been reaped.
func (p *Process) Exited() <-chan struct{} { return p.done }

// ExitError says how the child ended, with the last lines it printed.
func (p *Process) ExitError() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	return fmt.Errorf("%s exited (%v); last output: %s", p.name, p.err, p.tail.String())
}

// ExitStatus says how the child ended ("exit status 2", "signal: killed"),
// or "" while it runs.
func (p *Process) ExitStatus() string {
	select {
	case <-p.done:
	default:
		return ""
	}
	if p.err == nil {
		return "exit status 0"
	}
	return p.err.Error()
}

// Stop asks the child to end (SIGTERM), kills it after grace, and waits
// until it is reaped. It is safe to call more than once.
func (p *Process) Stop(grace time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.stdin.Close()
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

// ParentGone returns a context that ends when the parent closes the child's
// stdin (or dies) or the child gets SIGTERM or SIGINT. Only long-lived
// children call it: a shell plugin's stdin is its input.
func ParentGone() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	go func() {
		<-signalled()
		cancel()
	}()
	return ctx
}

// lineWriter prefixes every line and remembers the last ones.
type lineWriter struct {
	mu     sync.Mutex
	prefix string
	w      io.Writer
	buf    []byte
	tail   *tail
}

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := strings.IndexByte(string(l.buf), '\n')
		if i < 0 {
			break
		}
		l.emit(string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	return len(b), nil
}

func (l *lineWriter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(string(l.buf))
		l.buf = nil
	}
}

func (l *lineWriter) emit(line string) {
	l.tail.add(line)
	fmt.Fprintln(l.w, l.prefix+line)
}

// tail keeps the last max lines.
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 0 {
		return "(none)"
	}
	return strings.Join(t.lines, " | ")
}
