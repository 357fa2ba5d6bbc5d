package embedded

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// delayProxy sits between one apiserver replica and etcd and, once enabled,
// holds every byte etcd sends back for a fixed delay. The replica then sees
// every change (watch events included) late, as a replica with a slow or
// distant etcd would: the harness's own tests use it to show that the
// propagation specs catch a lagging replica. It is off during start-up so
// the replica boots at normal speed.
type delayProxy struct {
	listener net.Listener
	target   string
	delay    time.Duration
	enabled  atomic.Bool

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func startDelayProxy(target string, delay time.Duration) (*delayProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &delayProxy{listener: l, target: target, delay: delay}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *delayProxy) url() string { return "http://" + p.listener.Addr().String() }

func (p *delayProxy) enable() { p.enabled.Store(true) }

func (p *delayProxy) serve() {
	defer p.wg.Done()
	for {
		front, err := p.listener.Accept()
		if err != nil {
			return
		}
		back, err := net.Dial("tcp", p.target)
		if err != nil {
			front.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, front, back)
		p.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); _, _ = io.Copy(back, front); back.Close() }()
		go func() { defer p.wg.Done(); p.delayed(front, back); front.Close() }()
	}
}

// delayed copies src to dst, releasing each chunk delay after it arrived
// (when enabled), in order.
func (p *delayProxy) delayed(dst, src net.Conn) {
	type chunk struct {
		data    []byte
		release time.Time
	}
	queue := make(chan chunk, 1024)
	go func() {
		defer close(queue)
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				c := chunk{data: append([]byte(nil), buf[:n]...), release: time.Now()}
				if p.enabled.Load() {
					c.release = c.release.Add(p.delay)
				}
				queue <- c
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range queue {
		time.Sleep(time.Until(c.release))
		if _, err := dst.Write(c.data); err != nil {
			return
		}
	}
}

func (p *delayProxy) stop() {
	p.listener.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
