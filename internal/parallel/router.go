package parallel

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
	"github.com/admission-conformance/admission-conformance/framework/pki"
)

// A cluster whose apiservers reach this host through the in-cluster relay
// (kubeconfig provider, --plugin-image) delivers every webhook call to one
// address on this host. In a parallel run each worker has its own fake
// webhook server, so the parent puts a router there: it terminates TLS with
// a certificate of the run's webhook CA (which every worker's server uses
// too, so the caBundle a worker configures matches), takes the route off the
// front of the path ("/w/<route>/<namespace>/..."), and passes the call to
// the worker that announced the route. A call the worker drops (a hang the
// apiserver gave up on, a closed connection) is dropped towards the
// apiserver as well, so failure modes look the same as without the router.

// routePrefix starts every routed path.
const routePrefix = "/w/"

var routePattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// RoutePrefix is the path prefix of a worker's route.
func RoutePrefix(route string) string { return routePrefix + route }

// NewRoute is a fresh route name for a worker.
func NewRoute() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Announce tells the router where route's server listens.
func Announce(dir, route, addr string) error {
	if err := atomicfile.Write(filepath.Join(dir, route), []byte(addr), 0o600); err != nil {
		return fmt.Errorf("announce the webhook server to the router: %w", err)
	}
	return nil
}

// Router passes webhook calls to the workers' servers.
type Router struct {
	addr   string
	srv    *http.Server
	dir    string
	done   chan struct{}
	logger logr.Logger
}

// StartRouter listens at listen (where the relay's tunnels deliver) with a
// certificate from ca for advertise's host and hosts, and routes by the
// announcements in dir.
func StartRouter(listen, advertise string, hosts []string, ca *pki.CA, dir string, logger logr.Logger) (*Router, error) {
	host, _, err := net.SplitHostPort(advertise)
	if err != nil {
		return nil, fmt.Errorf("router: advertised address %q: %w", advertise, err)
	}
	kp, err := ca.Serving("admission-conformance-webhook-router", append([]string{host, "127.0.0.1", "localhost"}, hosts...)...)
	if err != nil {
		return nil, err
	}
	cert, err := kp.TLSCertificate()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("router: listen: %w", err)
	}
	r := &Router{addr: ln.Addr().String(), dir: dir, done: make(chan struct{}), logger: logger}
	upstream := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: ca.Pool(), MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     30 * time.Second,
		// HTTP/1.1 only, as the fake servers speak.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			target := pr.In.Context().Value(targetKey{}).(target)
			pr.Out.URL.Scheme, pr.Out.URL.Host = "https", target.addr
			pr.Out.URL.Path, pr.Out.URL.RawPath = target.path, ""
			pr.Out.Host = ""
		},
		Transport:     upstream,
		FlushInterval: -1,
		ErrorLog:      log.New(logWriter{logger}, "", 0),
		ErrorHandler:  drop,
	}
	r.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			t, err := r.target(req.URL.Path)
			if err != nil {
				http.Error(w, err.Error(), http.StatusNotFound)
				return
			}
			proxy.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), targetKey{}, t)))
		}),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.New(logWriter{logger}, "", 0),
	}
	tlsConfig := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	go func() {
		defer close(r.done)
		if err := r.srv.Serve(tls.NewListener(ln, tlsConfig)); !errors.Is(err, http.ErrServerClosed) {
			logger.Error(err, "webhook router stopped")
		}
	}()
	return r, nil
}

type targetKey struct{}

type target struct{ addr, path string }

// target is where a call for path goes.
func (r *Router) target(path string) (target, error) {
	rest, ok := strings.CutPrefix(path, routePrefix)
	if !ok {
		return target{}, fmt.Errorf("no route in %q", path)
	}
	route, tail, _ := strings.Cut(rest, "/")
	if !routePattern.MatchString(route) {
		return target{}, fmt.Errorf("malformed route in %q", path)
	}
	addr, err := os.ReadFile(filepath.Join(r.dir, route))
	if err != nil {
		return target{}, fmt.Errorf("no worker announced route %s", route)
	}
	host, _, err := net.SplitHostPort(string(addr))
	if err != nil || !net.ParseIP(host).IsLoopback() {
		return target{}, fmt.Errorf("route %s does not lead to this host", route)
	}
	return target{addr: string(addr), path: "/" + tail}, nil
}

// drop answers a call the worker's server dropped by dropping it too.
func drop(w http.ResponseWriter, _ *http.Request, err error) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, herr := hj.Hijack(); herr == nil {
			_ = conn.Close()
			return
		}
	}
	http.Error(w, err.Error(), http.StatusBadGateway)
}

// Addr is where the router listens.
func (r *Router) Addr() string { return r.addr }

// Close stops the router.
func (r *Router) Close(ctx context.Context) error {
	err := r.srv.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, r.srv.Close())
	}
	<-r.done
	return err
}

type logWriter struct{ l logr.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.V(1).Info(strings.TrimSpace(string(p)))
	return len(p), nil
}
