package fakewebhook

import (
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/admission-conformance/admission-conformance/framework/splice"
)

// ExternalIPv4 returns an IPv4 address of this host that is not loopback
// nor link-local: an address an EndpointSlice may name (the apiserver
// refuses loopback endpoints).
func ExternalIPv4() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", fmt.Errorf("interface addresses: %w", err)
	}
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.To4() == nil || !ipn.IP.IsGlobalUnicast() {
			continue
		}
		return ipn.IP.String(), nil
	}
	return "", errors.New("this host has no global unicast IPv4 address")
}

// Forwarder relays TCP connections to the server untouched (TLS included).
type Forwarder struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu      sync.Mutex
	conns   map[net.Conn]bool
	carried map[string]bool // local ports of the connections to the server
	closed  bool
}

// Forward listens on host (any port) and relays every connection to the
// server's own listener: the server reached at another address, for
// example a Service's endpoint, which cannot be a loopback address.
func (s *Server) Forward(host string) (*Forwarder, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("fakewebhook: forward: %w", err)
	}
	f := &Forwarder{ln: ln, target: s.listen, conns: map[net.Conn]bool{}, carried: map[string]bool{}}
	f.wg.Add(1)
	go f.accept()
	return f, nil
}

// Carried reports whether a call whose RemoteAddr is remoteAddr came
// through this forwarder: two forwarders are two endpoints of a Service,
// and the server tells by this which endpoint each call reached. By the
// port alone: on the way to a server listening on a Docker bridge's address
// (kind's gateway) Docker masquerades the connection, so the server sees
// another address than the forwarder dialled from, with the same port.
func (f *Forwarder) Carried(remoteAddr string) bool {
	_, port, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.carried[port]
}

// Port is the port the forwarder listens on.
func (f *Forwarder) Port() int { return f.ln.Addr().(*net.TCPAddr).Port }

// Close stops accepting, cuts the relayed connections (the apiserver keeps
// idle ones open) and waits for their relays to end.
func (f *Forwarder) Close() error {
	err := f.ln.Close()
	f.mu.Lock()
	f.closed = true
	for c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
	return err
}

// track records c to be cut by Close; false if Close already ran.
func (f *Forwarder) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = true
	return true
}

func (f *Forwarder) untrack(c net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, c)
}

func (f *Forwarder) accept() {
	defer f.wg.Done()
	for {
		in, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.relay(in)
		}()
	}
}

func (f *Forwarder) relay(in net.Conn) {
	defer in.Close()
	out, err := net.Dial("tcp", f.target)
	if err != nil {
		return
	}
	defer out.Close()
	f.mu.Lock()
	if _, port, err := net.SplitHostPort(out.LocalAddr().String()); err == nil {
		f.carried[port] = true
	}
	f.mu.Unlock()
	for _, c := range []net.Conn{in, out} {
		if !f.track(c) {
			return
		}
		defer f.untrack(c)
	}
	splice.Join(in, out)
}
