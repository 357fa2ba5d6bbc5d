package embedded

import (
	"net"
	"sync"
	"sync/atomic"

	"github.com/admission-conformance/admission-conformance/framework/splice"
)

// loadBalancer spreads TCP connections over the apiserver replicas round
// robin, as the load balancer in front of an HA control plane does. Each
// replica serves the same certificate and trusts the same client CA, so TLS
// passes through untouched.
type loadBalancer struct {
	listener net.Listener
	backends []string
	next     atomic.Uint64

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func startLoadBalancer(backends []string) (*loadBalancer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	lb := &loadBalancer{listener: l, backends: backends, conns: map[net.Conn]struct{}{}}
	lb.wg.Add(1)
	go lb.serve()
	return lb, nil
}

func (lb *loadBalancer) address() string { return lb.listener.Addr().String() }

func (lb *loadBalancer) serve() {
	defer lb.wg.Done()
	for {
		front, err := lb.listener.Accept()
		if err != nil {
			return // closed
		}
		backend := lb.backends[lb.next.Add(1)%uint64(len(lb.backends))]
		lb.wg.Add(1)
		go lb.proxy(front, backend)
	}
}

func (lb *loadBalancer) proxy(front net.Conn, backend string) {
	defer lb.wg.Done()
	back, err := net.Dial("tcp", backend)
	if err != nil {
		front.Close()
		return
	}
	if !lb.track(front, back) {
		return
	}
	defer lb.untrack(front, back)
	splice.Join(front, back)
}

// track registers a connection pair, or closes it if the balancer is closing.
func (lb *loadBalancer) track(conns ...net.Conn) bool {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	if lb.conns == nil {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		lb.conns[c] = struct{}{}
	}
	return true
}

func (lb *loadBalancer) untrack(conns ...net.Conn) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	for _, c := range conns {
		c.Close()
		delete(lb.conns, c)
	}
}

func (lb *loadBalancer) stop() {
	lb.listener.Close()
	lb.mu.Lock()
	for c := range lb.conns {
		c.Close()
	}
	lb.conns = nil
	lb.mu.Unlock()
	lb.wg.Wait()
}
