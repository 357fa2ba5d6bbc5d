package nodeadmission

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// invoker calls one plugin with the encoded pod.
type invoker func(ctx context.Context, pod []byte) (AdmitResult, error)

// pluginError is a failed invocation: the Reason the host rejects the pod
// with, and what happened, for the message.
type pluginError struct {
	reason string
	detail string
}

func (e *pluginError) Error() string { return e.detail }

func failed(format string, args ...any) error {
	return &pluginError{reason: ReasonPluginFailed, detail: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) error {
	return &pluginError{reason: ReasonPluginInvalidResponse, detail: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &pluginError{reason: ReasonPluginNotFound, detail: fmt.Sprintf(format, args...)}
}

// rejection turns a failed invocation of p into the host's decision. A
// deadline that passed wins over whatever error it caused, so every
// timeout has the same Reason whatever the plugin type.
func rejection(ctx context.Context, p *AdmissionPlugin, err error) AdmitResult {
	reason, detail := ReasonPluginFailed, err.Error()
	var pe *pluginError
	if errors.As(err, &pe) {
		reason = pe.reason
	}
	// gRPC can end the call with DeadlineExceeded a moment before ctx
	// itself reports its deadline: that is the same timeout.
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		status.Code(err) == codes.DeadlineExceeded {
		reason, detail = ReasonPluginTimeout, "did not answer in time"
	}
	return AdmitResult{Admit: false, Reason: reason,
		Message: fmt.Sprintf("admission plugin %q (%s) %s", p.Name, p.Type, oneLine(detail))}
}

// oneLine keeps messages readable in a pod's status and in events.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 512
	if len(s) > max {
		s = s[:max] + "..."
	}
	return s
}

// limitedBuffer keeps at most max bytes of what is written to it, so a
// plugin printing without end cannot exhaust the node's memory.
type limitedBuffer struct {
	buf       []byte
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	if len(p) > room {
		b.buf = append(b.buf, p[:max(room, 0)]...)
		b.truncated = true
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}
