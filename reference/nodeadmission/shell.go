package nodeadmission

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// maxAnswer bounds what the host reads from any plugin.
const maxAnswer = 1 << 20

// shellInvoker runs the executable at path with the pod on stdin. The plugin
// runs in its own process group, killed as a whole at the deadline, so a
// plugin's children cannot outlive it.
func shellInvoker(name, path string) invoker {
	return func(ctx context.Context, pod []byte) (AdmitResult, error) {
		cmd := exec.CommandContext(ctx, path)
		cmd.Dir = filepath.Dir(path)
		cmd.Env = append(os.Environ(), "POD_ADMISSION_PLUGIN_NAME="+name)
		cmd.Stdin = bytes.NewReader(pod)
		stdout, stderr := &limitedBuffer{max: maxAnswer}, &limitedBuffer{max: 4096}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = time.Second

		err := cmd.Run()
		if ctx.Err() != nil {
			return AdmitResult{}, ctx.Err()
		}
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			status, _ := exit.Sys().(syscall.WaitStatus)
			if status.Signaled() {
				return AdmitResult{}, failed("crashed (%s); stderr: %q", status.Signal(), stderr.buf)
			}
			return AdmitResult{}, failed("exited with status %d; stderr: %q", exit.ExitCode(), stderr.buf)
		case err != nil:
			return AdmitResult{}, failed("could not run: %v", err)
		case stdout.truncated:
			return AdmitResult{}, invalid("answered more than %d bytes", maxAnswer)
		}
		r, err := decodeResult(stdout.buf)
		if err != nil {
			return AdmitResult{}, invalid("%v; stdout: %q; stderr: %q", err, clip(stdout.buf), stderr.buf)
		}
		return r, nil
	}
}

func clip(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}
