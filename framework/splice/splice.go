// Package splice joins two connections: what one sends the other gets,
// both ways, untouched (TLS included), until both directions end.
//
// It is public because a spec may put itself between the apiserver and a
// webhook (fakewebhook.Forwarder relays the fake server's connections from
// another address, an endpoint of a Service); the harness's own relays use
// it too.
package splice

import (
	"io"
	"net"
	"sync"
)

// Join copies a to b and b to a until both directions have ended, then
// closes both. As one direction ends (its source reached EOF or failed),
// the write side of its destination is closed (CloseWrite: TCP and Unix
// connections) so the peer there sees the end of what it was sent and can
// finish what it still sends the other way; a connection that cannot
// half-close is closed.
func Join(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	copyOneWay := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if hc, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = hc.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}
	go copyOneWay(a, b)
	go copyOneWay(b, a)
	wg.Wait()
	a.Close()
	b.Close()
}
