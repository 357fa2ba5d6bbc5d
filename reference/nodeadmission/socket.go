package nodeadmission

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/admission-conformance/admission-conformance/reference/nodeadmission/unixsock"
)

// socketInvoker talks to the server on the Unix socket at path: it writes
// the pod, half-closes, and reads the AdmitResult until the server closes.
func socketInvoker(path string) invoker {
	return func(ctx context.Context, pod []byte) (AdmitResult, error) {
		conn, err := unixsock.Dial(ctx, path)
		if err != nil {
			return AdmitResult{}, failed("could not be reached: %v", err)
		}
		defer conn.Close()
		// Reads and writes honour the deadline; a cancelled context closes
		// the connection too, for cancellations without a deadline.
		if deadline, ok := ctx.Deadline(); ok {
			_ = conn.SetDeadline(deadline)
		}
		stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
		defer stop()

		if _, err := conn.Write(pod); err != nil {
			return AdmitResult{}, failed("closed the connection before reading the pod: %v", err)
		}
		if err := conn.(*net.UnixConn).CloseWrite(); err != nil {
			return AdmitResult{}, failed("could not be sent the end of the pod: %v", err)
		}
		answer, err := io.ReadAll(io.LimitReader(conn, maxAnswer+1))
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The connection's deadline is the context's, and may pass a
			// moment before the context notices.
			return AdmitResult{}, context.DeadlineExceeded
		}
		if err != nil {
			return AdmitResult{}, failed("broke the connection before answering: %v", err)
		}
		if len(answer) == 0 {
			return AdmitResult{}, failed("closed the connection without answering")
		}
		if len(answer) > maxAnswer {
			return AdmitResult{}, invalid("answered more than %d bytes", maxAnswer)
		}
		r, err := decodeResult(answer)
		if err != nil {
			return AdmitResult{}, invalid("%v; answer: %q", err, clip(answer))
		}
		return r, nil
	}
}
