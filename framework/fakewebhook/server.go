package fakewebhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/framework/pki"
)

// Server is a running fake webhook server. Create it with New and stop it
// with Close.
type Server struct {
	caBundle []byte
	address  string // dialable host:port
	listen   string // where it listens, dialable
	prefix   string // URL path prefix (WithPathPrefix)
	fault    string // injected errors (WithInjectedErrors)
	// fieldPaths names the fields of requests and answers (WithFieldPaths).
	fieldPaths FieldPaths
	log        logr.Logger
	http       *http.Server
	started    time.Time
	seq        atomic.Int64
	journal    *Journal

	mu        sync.RWMutex
	endpoints map[string]Endpoint
	closed    bool           // set under mu so that no handler enters after Close
	handlers  sync.WaitGroup // running handlers, including hijacked ones

	// fresh are connections accepted that have not sent a request yet
	// (http.StateNew): Shutdown would wait five seconds for each before
	// counting it idle, so Close cuts them.
	fresh map[net.Conn]bool

	stopping  chan struct{} // closed by Close to release hanging handlers
	served    chan struct{} // closed when http.Server.Serve returns
	closeOnce sync.Once
	closeErr  error
}

// New starts an HTTPS server whose certificate ca signs for 127.0.0.1,
// localhost, the listen host and any WithHosts names.
func New(ca *pki.CA, opts ...Option) (*Server, error) {
	if ca == nil {
		return nil, errors.New("fakewebhook: nil CA")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	ln, err := net.Listen("tcp", cfg.listenAddress)
	if err != nil {
		return nil, fmt.Errorf("fakewebhook: listen: %w", err)
	}
	listen := dialableAddress(ln.Addr())
	address := listen
	if cfg.advertised != "" {
		address = cfg.advertised
	}
	tlsConfig, err := servingConfig(ca, servingHosts(address, cfg.hosts))
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("fakewebhook: %w", err)
	}
	s := &Server{
		caBundle:   ca.CertPEM(),
		address:    address,
		listen:     listen,
		prefix:     cfg.pathPrefix,
		fault:      cfg.fault,
		fieldPaths: cfg.fieldPaths,
		log:        cfg.logger,
		started:    time.Now(),
		journal:    newJournal(),
		endpoints:  map[string]Endpoint{},
		fresh:      map[net.Conn]bool{},
		stopping:   make(chan struct{}),
		served:     make(chan struct{}),
	}
	s.http = &http.Server{
		Handler:           http.HandlerFunc(s.handle),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(logWriter{cfg.logger}, "", 0),
		ConnState:         s.connState,
	}
	go s.serve(tls.NewListener(ln, tlsConfig))
	return s, nil
}

func (s *Server) serve(ln net.Listener) {
	defer close(s.served)
	if err := s.http.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		s.log.Error(err, "fake webhook server stopped serving")
	}
}

// servingConfig issues the serving certificate. Only HTTP/1.1 is offered
// because CloseConnection and abandoned hangs must drop the TCP connection
// of one request, which HTTP/2 multiplexing cannot do; the apiserver's
// webhook client falls back to HTTP/1.1.
func servingConfig(ca *pki.CA, hosts []string) (*tls.Config, error) {
	kp, err := ca.Serving("fake-admission-webhook", hosts...)
	if err != nil {
		return nil, err
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		return nil, err
	}
	// A webhook reached through a Service is called with the Service's DNS
	// name (<service>.<namespace>.svc) as the TLS server name: such a name
	// gets a certificate of its own, issued by ca on first use.
	var issued sync.Map // server name -> *tls.Certificate
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			name := hello.ServerName
			if !strings.HasSuffix(name, ".svc") {
				return &cert, nil
			}
			if c, ok := issued.Load(name); ok {
				return c.(*tls.Certificate), nil
			}
			kp, err := ca.Serving(name, name)
			if err != nil {
				return nil, err
			}
			c, err := kp.TLSCertificate()
			if err != nil {
				return nil, err
			}
			actual, _ := issued.LoadOrStore(name, &c)
			return actual.(*tls.Certificate), nil
		},
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"},
	}, nil
}

// dialableAddress turns a wildcard listen address into one a client on the
// same host can dial.
func dialableAddress(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

func servingHosts(address string, extra []string) []string {
	hosts := []string{"127.0.0.1", "localhost"}
	if host, _, err := net.SplitHostPort(address); err == nil {
		hosts = append(hosts, host)
	}
	hosts = append(hosts, extra...)
	seen := map[string]bool{}
	out := hosts[:0]
	for _, h := range hosts {
		if h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// Close stops the server: hanging and delayed handlers are released without
// answering, then it waits for every handler to return or ctx to end.
// Calling it again returns the first result.
func (s *Server) Close(ctx context.Context) error {
	s.closeOnce.Do(func() { s.closeErr = s.shutdown(ctx) })
	return s.closeErr
}

// connState keeps track of the fresh connections.
func (s *Server) connState(c net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if state == http.StateNew && !s.closed {
		s.fresh[c] = true
	} else {
		delete(s.fresh, c)
	}
}

func (s *Server) shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	for c := range s.fresh {
		_ = c.Close() // no request on it yet: nothing to finish
	}
	s.fresh = map[net.Conn]bool{}
	s.mu.Unlock()
	close(s.stopping)

	err := s.http.Shutdown(ctx)
	if err != nil {
		// Shutdown gave up on busy connections; cut them.
		err = errors.Join(fmt.Errorf("fakewebhook: shutdown: %w", err), s.http.Close())
	}
	handlersDone := make(chan struct{})
	go func() {
		s.handlers.Wait()
		close(handlersDone)
	}()
	select {
	case <-handlersDone:
	case <-ctx.Done():
		return errors.Join(err, fmt.Errorf("fakewebhook: handlers still running: %w", ctx.Err()))
	}
	<-s.served
	return err
}

// URL is the https URL of path on this server.
func (s *Server) URL(path string) string {
	return "https://" + s.address + s.prefix + path
}

// ListenAddress is the host:port the server listens on, dialable on this
// host; Address differs from it behind a relay.
func (s *Server) ListenAddress() string { return s.listen }

// Address is the host:port clients dial, e.g. "127.0.0.1:40123".
func (s *Server) Address() string { return s.address }

// CABundle is the PEM CA certificate for a webhook's clientConfig.caBundle.
func (s *Server) CABundle() []byte { return append([]byte(nil), s.caBundle...) }

// Journal is the record of every call.
func (s *Server) Journal() *Journal { return s.journal }

// Register serves e on e.Path. The path must start with "/" and not be
// registered already.
func (s *Server) Register(e Endpoint) error {
	if !strings.HasPrefix(e.Path, "/") {
		return fmt.Errorf("fakewebhook: endpoint path %q must start with \"/\"", e.Path)
	}
	if e.Phase != Mutating && e.Phase != Validating {
		return fmt.Errorf("fakewebhook: endpoint %s: phase %q is neither %q nor %q", e.Path, e.Phase, Mutating, Validating)
	}
	if err := e.Behaviour.validate(); err != nil {
		return fmt.Errorf("fakewebhook: endpoint %s: %w", e.Path, err)
	}
	e.Behaviour = e.Behaviour.clone()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.endpoints[e.Path]; ok {
		return fmt.Errorf("fakewebhook: endpoint %s is already registered", e.Path)
	}
	s.endpoints[e.Path] = e
	return nil
}

// Unregister stops serving path; later calls to it get 404. Calls already
// being handled keep the behaviour they started with.
func (s *Server) Unregister(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.endpoints, path)
}

// SetBehaviour replaces the behaviour of a registered path for calls
// received from now on.
func (s *Server) SetBehaviour(path string, b Behaviour) error {
	if err := b.validate(); err != nil {
		return fmt.Errorf("fakewebhook: endpoint %s: %w", path, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.endpoints[path]
	if !ok {
		return fmt.Errorf("fakewebhook: endpoint %s is not registered", path)
	}
	e.Behaviour = b.clone()
	s.endpoints[path] = e
	return nil
}

func (s *Server) endpoint(path string) (Endpoint, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.endpoints[path]
	return e, ok
}

// enter admits a handler unless the server is closing; the check and the
// WaitGroup increment share the lock Close takes, so Close's Wait never
// races with a late Add.
func (s *Server) enter() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// now returns the current time and its monotonic offset from the start.
func (s *Server) now() (time.Time, time.Duration) {
	t := time.Now()
	return t, t.Sub(s.started)
}

// logWriter routes net/http's own error log (TLS handshake failures that
// tests cause on purpose) to the logger instead of stderr.
type logWriter struct{ log logr.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.log.V(1).Info(strings.TrimSpace(string(p)))
	return len(p), nil
}
