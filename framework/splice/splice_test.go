package splice

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestJoinCarriesBothWaysAndHalfCloses: a client that sends a request and
// closes its write side still gets the whole answer the server sends once
// it has read the request to its end; then both joined connections close.
func TestJoinCarriesBothWaysAndHalfCloses(t *testing.T) {
	server := listen(t)
	proxy := listen(t)
	serverErr := make(chan error, 1)
	go func() {
		c, err := server.Accept()
		if err != nil {
			serverErr <- err
			return
		}
		defer c.Close()
		req, err := io.ReadAll(c) // to the client's half-close
		if err == nil {
			_, err = c.Write(append([]byte("answer to "), req...))
		}
		serverErr <- err
	}()
	joined := make(chan struct{})
	go func() {
		in, err := proxy.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", server.Addr().String())
		if err != nil {
			in.Close()
			return
		}
		Join(in, out)
		close(joined)
	}()

	c, err := net.Dial("tcp", proxy.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("request")); err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "answer to request" {
		t.Fatalf("read %q, %v; want the whole answer", got, err)
	}
	if err := <-serverErr; err != nil {
		t.Fatal(err)
	}
	select {
	case <-joined:
	case <-time.After(10 * time.Second):
		t.Fatal("Join did not return once both directions ended")
	}
}

// TestJoinClosesWhatCannotHalfClose: with a connection that cannot
// half-close (net.Pipe), the end of one direction closes it, so Join
// still returns.
func TestJoinClosesWhatCannotHalfClose(t *testing.T) {
	a, aPeer := net.Pipe()
	b, bPeer := net.Pipe()
	done := make(chan struct{})
	go func() { Join(a, b); close(done) }()
	go func() { _, _ = io.Copy(io.Discard, bPeer) }()
	go func() { _, _ = io.Copy(io.Discard, aPeer) }()
	aPeer.Close() // a's source ends: b is closed, so b's reader ends too
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Join did not return")
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}
