package fakenodeplugin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A shell plugin is a program the host starts for each pod. Re-executing
// this binary for each (a 220 MB Go program initialising some 1,200
// packages) took up to seconds beside a CPU hog, and the fake's own start-up
// then failed timing cases and control pods ("did not answer in time") that
// say nothing of the host. So the program is a small POSIX shell script that
// passes the pod to a server process of this binary, started at install
// like the other types': it writes the pod into a call dir, names the dir
// on the server's request FIFO, and copies the answer from the dir's answer
// FIFO to stdout; then it ends as the verdict file says (exit status, or
// SIGKILL for a crash). The host sees the script's own process, its exit
// and its output, as it would a plugin's.

// shellScript is the shim the host runs.
func shellScript(c childConfig) ([]byte, error) {
	for _, s := range []string{c.Requests, c.Calls} {
		if strings.ContainsAny(s, "'\n") {
			return nil, fmt.Errorf("path %q cannot be quoted for a shell script", s)
		}
	}
	return []byte(fmt.Sprintf(`#!/bin/sh
# A fake KEP-2823 node admission plugin of admission-conformance: relays the
# pod to the fake's server and ends as it says.
PATH=/usr/bin:/bin:$PATH
d=$(mktemp -d '%s/call.XXXXXX') || exit 70
trap 'rm -rf "$d"' EXIT
cat >"$d/pod" && mkfifo "$d/answer" || exit 70
echo "$$ $d" >'%s' || exit 71
cat "$d/answer" || exit 72
read -r verdict rest <"$d/verdict" || exit 73
case $verdict in
answered) exit 0 ;;
exit) exit "$rest" ;;
kill) rm -rf "$d"; kill -KILL $$ ;;
esac
exit 74
`, c.Calls, c.Requests)), nil
}

// serveShell answers the shim's calls named on the request FIFO until ctx
// ends.
func serveShell(ctx context.Context, c childConfig) error {
	// Opened for reading and writing, so that it never reads end of file
	// between two scripts' writes.
	fifo, err := os.OpenFile(c.Requests, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		fifo.Close()
	}()
	if err := markReady(c); err != nil {
		return err
	}
	lines := bufio.NewScanner(fifo)
	for lines.Scan() {
		pid, dir, ok := strings.Cut(lines.Text(), " ")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || filepath.Dir(dir) != c.Calls {
			fmt.Fprintf(os.Stderr, "fake shell plugin: malformed request %q\n", lines.Text())
			continue
		}
		go answerShell(ctx, c, n, dir)
	}
	if ctx.Err() != nil {
		return nil
	}
	return lines.Err()
}

// answerShell plays one call: the journal, the behaviour's delay, then the
// answer and the verdict the script ends by.
func answerShell(ctx context.Context, c childConfig, pid int, dir string) {
	pod, err := os.ReadFile(filepath.Join(dir, "pod"))
	if err != nil {
		return
	}
	inv, err := received(c, pod, pid)
	if err != nil {
		return
	}
	b := c.Plugin.Behaviour.For(pod)
	pause(b.Delay.Duration, ctx.Done())
	if ctx.Err() != nil {
		return
	}
	answer, verdict := []byte(nil), "answered"
	switch b.Action {
	case Crash:
		verdict = "kill"
	case Exit:
		verdict = fmt.Sprintf("exit %d", b.ExitCode)
	case Garbage:
		answer = garbage
	default:
		if answer, err = json.Marshal(b.answer()); err != nil {
			return
		}
		answer = append(answer, '\n')
	}
	// The verdict first: the script reads it once the answer FIFO closes.
	if err := os.WriteFile(filepath.Join(dir, "verdict"), []byte(verdict+"\n"), 0o644); err != nil {
		return
	}
	// Opening blocks until the script reads; a script the host killed
	// meanwhile never does, so the open gives up with the call.
	out, err := openFIFOWriter(ctx, filepath.Join(dir, "answer"), pid)
	if err != nil {
		return
	}
	_, werr := out.Write(answer)
	if cerr := out.Close(); werr == nil && cerr == nil && verdict == "answered" {
		_ = answered(c, inv)
	}
}

// openFIFOWriter opens a FIFO for writing once a reader has it open,
// polling without blocking, so that a reader that never comes (its script,
// pid, killed by the host) does not hold a goroutine.
func openFIFOWriter(ctx context.Context, path string, pid int) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err == nil {
			// Blocking writes from here on.
			if err := syscall.SetNonblock(fd, false); err != nil {
				syscall.Close(fd)
				return nil, err
			}
			return os.NewFile(uintptr(fd), path), nil
		}
		if err != syscall.ENXIO { // ENXIO: no reader yet
			return nil, err
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			return nil, fmt.Errorf("the script (pid %d) is gone", pid) // killed by the host
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}
