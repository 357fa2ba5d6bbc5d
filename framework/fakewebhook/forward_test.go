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
