package fakenodeplugin

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"

	"github.com/admission-conformance/admission-conformance/reference/nodeadmission/unixsock"
)

// serveSocket answers on the Unix socket at c.Entry until ctx ends.
func serveSocket(ctx context.Context, c childConfig) error {
	l, err := unixsock.Listen(c.Entry)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := markReady(c); err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	for {
		conn, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go answerSocket(ctx, c, conn)
	}
}

func answerSocket(ctx context.Context, c childConfig, conn net.Conn) {
	defer conn.Close()
	pod, err := io.ReadAll(conn)
	if err != nil {
		return
	}
	inv, err := received(c, pod, os.Getpid())
	if err != nil {
		return
	}
	b := c.Plugin.Behaviour.For(pod)
	pause(b.Delay.Duration, ctx.Done())
	switch b.Action {
	case Crash, Exit:
		die(b)
	case Garbage:
		_, err = conn.Write(garbage)
	default:
		err = json.NewEncoder(conn).Encode(b.answer())
	}
	if err == nil {
		_ = answered(c, inv)
	}
}
