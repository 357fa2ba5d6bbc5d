// Command envoy stands in for the envoy proxy that kind runs in front of
// several control-plane nodes, for hosts that cannot pull envoy's image. It
// reads the same files kind writes (a bootstrap naming file-based LDS and CDS
// configs) and does what kind asks of envoy: a TCP proxy from the listener's
// port to the cluster's endpoints, round robin over those whose HTTPS
// /healthz answers 200, all of them when none does (envoy's panic mode). It
// re-reads the files every half second, as envoy watches them.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/splice"
)

type socketAddress struct {
	SocketAddress struct {
		Address   string `json:"address"`
		PortValue int    `json:"port_value"`
	} `json:"socket_address"`
}

type bootstrap struct {
	DynamicResources struct {
		CDS struct {
			PathConfigSource struct{ Path string } `json:"path_config_source"`
		} `json:"cds_config"`
		LDS struct {
			PathConfigSource struct{ Path string } `json:"path_config_source"`
		} `json:"lds_config"`
	} `json:"dynamic_resources"`
}

type listeners struct {
	Resources []struct {
		Address socketAddress `json:"address"`
	} `json:"resources"`
}

type clusters struct {
	Resources []struct {
		LoadAssignment struct {
			Endpoints []struct {
				LBEndpoints []struct {
					Endpoint struct {
						Address socketAddress `json:"address"`
					} `json:"endpoint"`
				} `json:"lb_endpoints"`
			} `json:"endpoints"`
		} `json:"load_assignment"`
	} `json:"resources"`
}

func main() {
	config := flag.String("c", "", "bootstrap config")
	flag.Parse()
	var b bootstrap
	if err := readYAML(*config, &b); err != nil {
		log.Fatal(err)
	}
	p := &proxy{}
	go p.healthLoop()
	var lastLDS, lastCDS string
	for ; ; time.Sleep(500 * time.Millisecond) {
		if raw, err := os.ReadFile(b.DynamicResources.CDS.PathConfigSource.Path); err == nil && string(raw) != lastCDS {
			lastCDS = string(raw)
			var c clusters
			if err := yaml.Unmarshal(raw, &c); err != nil {
				log.Printf("cds: %v", err)
			} else {
				p.setBackends(c)
			}
		}
		if raw, err := os.ReadFile(b.DynamicResources.LDS.PathConfigSource.Path); err == nil && string(raw) != lastLDS {
			lastLDS = string(raw)
			var l listeners
			if err := yaml.Unmarshal(raw, &l); err != nil {
				log.Printf("lds: %v", err)
			} else if len(l.Resources) > 0 {
				a := l.Resources[0].Address.SocketAddress
				p.listen(net.JoinHostPort(a.Address, strconv.Itoa(a.PortValue)))
			}
		}
	}
}

func readYAML(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(raw, v)
}

type backend struct {
	addr    string
	healthy atomic.Bool
}

type proxy struct {
	mu       sync.Mutex
	backends []*backend
	ln       net.Listener
	next     atomic.Uint64
}

func (p *proxy) setBackends(c clusters) {
	var bs []*backend
	for _, r := range c.Resources {
		for _, e := range r.LoadAssignment.Endpoints {
			for _, lb := range e.LBEndpoints {
				a := lb.Endpoint.Address.SocketAddress
				bs = append(bs, &backend{addr: net.JoinHostPort(a.Address, strconv.Itoa(a.PortValue))})
			}
		}
	}
	p.mu.Lock()
	p.backends = bs
	p.mu.Unlock()
	log.Printf("backends: %d", len(bs))
}

func (p *proxy) listen(addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		if p.ln.Addr().String() == addr {
			return
		}
		p.ln.Close()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Printf("listen %s: %v", addr, err)
		return
	}
	p.ln = ln
	log.Printf("listening on %s", addr)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(conn)
		}
	}()
}

// pick orders the backends to try: healthy ones from the round-robin
// position, or every one when none is healthy.
func (p *proxy) pick() []*backend {
	p.mu.Lock()
	all := append([]*backend(nil), p.backends...)
	p.mu.Unlock()
	var healthy []*backend
	for _, b := range all {
		if b.healthy.Load() {
			healthy = append(healthy, b)
		}
	}
	if len(healthy) == 0 {
		healthy = all
	}
	if len(healthy) == 0 {
		return nil
	}
	start := int(p.next.Add(1) % uint64(len(healthy)))
	return append(healthy[start:], healthy[:start]...)
}

func (p *proxy) serve(conn net.Conn) {
	defer conn.Close()
	for _, b := range p.pick() {
		up, err := net.DialTimeout("tcp", b.addr, 250*time.Millisecond)
		if err != nil {
			continue
		}
		splice.Join(conn, up)
		return
	}
}

// healthLoop checks HTTPS /healthz on every backend every 2 s, as kind's
// cluster config asks envoy to.
func (p *proxy) healthLoop() {
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // envoy: trust_chain_verification ACCEPT_UNTRUSTED
	}}
	for ; ; time.Sleep(2 * time.Second) {
		p.mu.Lock()
		bs := append([]*backend(nil), p.backends...)
		p.mu.Unlock()
		for _, b := range bs {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://%s/healthz", b.addr), nil)
			resp, err := client.Do(req)
			ok := err == nil && resp.StatusCode == http.StatusOK
			if resp != nil {
				resp.Body.Close()
			}
			cancel()
			if ok != b.healthy.Load() {
				log.Printf("backend %s healthy=%t", b.addr, ok)
			}
			b.healthy.Store(ok)
		}
	}
}
