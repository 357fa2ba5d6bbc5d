package childproc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// Spec says which child to start and where its output goes.
type Spec struct {
	// Name names the child in errors, e.g. "node-0", "worker Foo".
	Name string
	// Role is a role of this binary (RunIfChild runs it), with Config the
	// path of its configuration file; or else Args are the arguments of
	// this binary, a subcommand (`run --options FILE`).
	Role, Config string
	Args         []string
	// Env is added to the child's environment.
	Env []string
	// Elsewhere, if set, runs a role somewhere other than this host (in a
	// node's container, cluster.NodeExec.Argv): given the role's
	// environment and argument, it returns the whole command line, whose
	// stdin must reach the child (the parent-death pipe).
	Elsewhere func(env []string, args ...string) []string

	// OwnGroup starts the child in a process group of its own, so that a
	// terminal's Ctrl-C reaches the parent only, which passes it on once
	// (Group.Signal): a child that stops in order on its own (a worker, a
	// matrix target) must not get each signal twice.
	OwnGroup bool
	// EndWithParent gives a subcommand the stdin pipe a role always gets:
	// the parent never writes it, and when the parent dies it reaches EOF
	// (UntilParentGone).
	EndWithParent bool

	// File, if set, receives stdout and stderr as the child writes them: the
	// child holds the file itself, so what it prints after the parent died
	// (its cleanup) is kept, and printing it does not kill it (SIGPIPE).
	// Leave Log and Copy unset then.
	File *os.File
	// Log receives the child's stdout and stderr line by line, each line
	// after Prefix (e.g. "node-0: ", "[target] "); Copy receives the same
	// lines without it (a log file). Either may be nil. A line is written
	// to both before the next (of either stream) is; a Log several
	// children (or the parent) write at once must take one Write at a
	// time (SharedWriter).
	Log    io.Writer
	Prefix string
	Copy   io.Writer
	// ErrorPrefix, if set, makes the last line of stderr that starts with
	// it (without it) the child's own account of why it failed (ErrorLine),
	// e.g. "run-conformance: ".
	ErrorPrefix string
}

// errOutput is a Spec that asks for the output both in a file the child
// writes and through the parent.
var errOutput = errors.New("give File, or Log and Copy, not both")

// command is the child's command, not yet started, with its stdin pipe
// (nil for a subcommand that does not end with its parent).
func (s Spec) command() (*exec.Cmd, io.WriteCloser, error) {
	if s.File != nil && (s.Log != nil || s.Copy != nil) {
		return nil, nil, fmt.Errorf("%s: %w", s.Name, errOutput)
	}
	if (s.Role == "") == (s.Args == nil) {
		return nil, nil, fmt.Errorf("%s: give a role or arguments, one of them", s.Name)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: find own executable: %w", s.Name, err)
	}
	var cmd *exec.Cmd
	switch {
	case s.Role != "" && s.Elsewhere != nil:
		argv := s.Elsewhere(append([]string{RoleEnv + "=" + s.Role, ConfigEnv + "=" + s.Config}, s.Env...), roleArg(s.Role))
		if len(argv) == 0 {
			return nil, nil, fmt.Errorf("%s: no command to run it elsewhere", s.Name)
		}
		cmd = exec.Command(argv[0], argv[1:]...)
	case s.Role != "":
		cmd = exec.Command(exe, roleArg(s.Role))
		cmd.Env = append(append(os.Environ(), RoleEnv+"="+s.Role, ConfigEnv+"="+s.Config), s.Env...)
	default:
		cmd = exec.Command(exe, s.Args...)
		cmd.Env = append(os.Environ(), s.Env...)
	}
	if s.OwnGroup {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	if s.Role == "" && !s.EndWithParent {
		return cmd, nil, nil
	}
	// No parent-death signal: Linux sends it when the starting thread ends,
	// which in Go can be long before the process does. The stdin pipe ends
	// the child when the parent process dies. (Wait closes it once the
	// child has exited.)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return cmd, stdin, nil
}

// roleArg is the argument a role's child gets. It is never read by a binary
// that calls RunIfChild; one that does not fails on it at once (unknown flag
// or command) instead of running the harness again.
func roleArg(role string) string { return "-admission-conformance-child=" + role }
