package kubeconfig

import (
	"context"
	"io"
	"net"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/framework/splice"
)

// The in-cluster relay carries apiserver-to-webhook connections from a pod
// in the cluster to the harness's webhook server on this host, for clusters
// whose apiservers cannot reach this host. The harness opens "tunnel"
// connections to the relay (through a port-forward, so only the apiserver
// needs to be reachable); the relay wakes one with a byte when an apiserver
// connects and then copies bytes both ways. TLS stays end to end: the relay
// never sees a request, the harness's server answers and journals it, and
// timings are taken where they always are.

// wake is the byte the relay sends down an idle tunnel connection it hands
// an apiserver connection to; ack is the harness's answer once it has a
// connection to its webhook server. A tunnel that does not answer (its
// port-forward stream died while idle) is dropped and the next one tried.
const (
	wake = 1
	ack  = 2
)

// ServeRelay runs the relay until ctx ends: apiservers connect to listen,
// the harness's tunnel connections arrive at tunnel.
func ServeRelay(ctx context.Context, listen, tunnel string, logger logr.Logger) error {
	return serveRelay(ctx, listen, tunnel, handTimeout, logger)
}

// ServeHealth accepts and closes connections on addr until ctx ends: the
// relay pod's readiness probe (probing the other ports would use tunnels).
func ServeHealth(ctx context.Context, addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go func() { <-ctx.Done(); l.Close() }()
	for {
		c, err := l.Accept()
		if err != nil {
			return nil
		}
		c.Close()
	}
}

func serveRelay(ctx context.Context, listen, tunnel string, wait time.Duration, logger logr.Logger) error {
	tl, err := net.Listen("tcp", tunnel)
	if err != nil {
		return err
	}
	defer tl.Close()
	al, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	defer al.Close()
	go func() { <-ctx.Done(); tl.Close(); al.Close() }()
	idle := make(chan net.Conn, 256)
	go func() {
		for {
			c, err := tl.Accept()
			if err != nil {
				return
			}
			select {
			case idle <- c:
			default:
				c.Close() // more idle tunnels than any burst needs
			}
		}
	}()
	logger.Info("relay ready", "listen", listen, "tunnel", tunnel)
	for {
		a, err := al.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go hand(a, idle, wait, logger)
	}
}

// handTimeout is how long an apiserver connection waits for a tunnel.
const handTimeout = 10 * time.Second

// hand gives the apiserver connection a to the first idle tunnel that
// answers the wake byte, or closes it after wait without one.
func hand(a net.Conn, idle <-chan net.Conn, wait time.Duration, logger logr.Logger) {
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	for {
		select {
		case t := <-idle:
			if !handshake(t) {
				t.Close()
				continue
			}
			splice.Join(a, t)
			return
		case <-timeout.C:
			logger.Info("no tunnel from the harness: closing an apiserver connection")
			a.Close()
			return
		}
	}
}

func handshake(t net.Conn) bool {
	if _, err := t.Write([]byte{wake}); err != nil {
		return false
	}
	_ = t.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 1)
	_, err := io.ReadFull(t, b)
	_ = t.SetReadDeadline(time.Time{})
	return err == nil && b[0] == ack
}

// tunnels keeps idle connections open from this host to the relay (at
// remote, a port-forward) and joins each one the relay wakes to a fresh
// connection to the webhook server at local.
type tunnels struct {
	remote, local string
	idle          int
	logger        logr.Logger
	stop          chan struct{}
	done          sync.WaitGroup
}

func startTunnels(remote, local string, idle int, logger logr.Logger) *tunnels {
	t := &tunnels{remote: remote, local: local, idle: idle, logger: logger, stop: make(chan struct{})}
	t.done.Add(1)
	go t.run()
	return t
}

func (t *tunnels) run() {
	defer t.done.Done()
	slots := make(chan struct{}, t.idle)
	for {
		select {
		case <-t.stop:
			return
		case slots <- struct{}{}:
		}
		go func() {
			c, err := net.Dial("tcp", t.remote)
			if err != nil {
				time.Sleep(200 * time.Millisecond)
				<-slots
				return
			}
			go func() { <-t.stop; c.Close() }()
			b := make([]byte, 1)
			_, err = io.ReadFull(c, b)
			<-slots // no longer idle: let another take its place
			if err != nil || b[0] != wake {
				c.Close()
				return
			}
			l, err := net.Dial("tcp", t.local)
			if err != nil {
				t.logger.V(1).Info("relay: webhook server unreachable", "error", err.Error())
				c.Close()
				return
			}
			if _, err := c.Write([]byte{ack}); err != nil {
				c.Close()
				l.Close()
				return
			}
			splice.Join(c, l)
		}()
	}
}

func (t *tunnels) close() {
	close(t.stop)
	t.done.Wait()
}
