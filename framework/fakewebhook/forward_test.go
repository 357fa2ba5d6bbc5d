package fakewebhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/pki"
)

// TestForwardServesServiceNames checks what a call through a Service needs:
// the forwarder relays TLS untouched and the server answers a Service's DNS
// name with a certificate for it.
func TestForwardServesServiceNames(t *testing.T) {
	ca, err := pki.NewCA("test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ca)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	fw, err := s.Forward("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.CertPEM())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "hooks.ns.svc"}}}
	resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/unregistered", fw.Port()))
	if err != nil {
		t.Fatalf("a call through the forwarder with server name hooks.ns.svc: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	client.CloseIdleConnections()
	if err := fw.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestForwardersTellWhichCarriedACall: two forwarders are two endpoints;
// each call's RemoteAddr is carried by exactly the one it came through.
func TestForwardersTellWhichCarriedACall(t *testing.T) {
	ca, err := pki.NewCA("test")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ca)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	var fws []*Forwarder
	for range 2 {
		fw, err := s.Forward("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		defer fw.Close()
		fws = append(fws, fw)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.CertPEM())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "hooks.ns.svc"}}}
	defer client.CloseIdleConnections()
	for _, i := range []int{0, 1, 1} {
		resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/unregistered", fws[i].Port()))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	calls := s.Journal().Calls()
	if len(calls) != 3 {
		t.Fatalf("%d calls, want 3", len(calls))
	}
	for n, i := range []int{0, 1, 1} {
		if !fws[i].Carried(calls[n].RemoteAddr) || fws[1-i].Carried(calls[n].RemoteAddr) {
			t.Errorf("call %d (from %s) not told apart: forwarder %d should carry it alone", n, calls[n].RemoteAddr, i)
		}
	}
}
