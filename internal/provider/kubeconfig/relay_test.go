package kubeconfig

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestRelayCarriesBytesBothWays: a connection to the relay reaches the
// server behind the tunnels and the answer comes back; several at once.
func TestRelayCarriesBytesBothWays(t *testing.T) {
	server, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	go func() { // upper-cases what it reads, then closes
		for {
			c, err := server.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, _ := io.ReadAll(c)
				_, _ = c.Write([]byte(strings.ToUpper(string(b))))
			}()
		}
	}()
	listen, _ := freeLocalAddress()
	tunnel, _ := freeLocalAddress()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- ServeRelay(ctx, listen, tunnel, logr.Discard()) }()
	waitListening(t, tunnel)
	tun := startTunnels(tunnel, server.Addr().String(), 2, logr.Discard())
	defer tun.close()
	for i := 0; i < 5; i++ {
		c, err := net.Dial("tcp", listen)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte("ping"))
		_ = c.(*net.TCPConn).CloseWrite()
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, err := io.ReadAll(c)
		c.Close()
		if err != nil || string(got) != "PING" {
			t.Fatalf("connection %d: got %q, %v", i, got, err)
		}
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("relay ended with %v", err)
	}
}

// TestRelayWithoutTunnelsClosesConnections: with no harness attached an
// apiserver connection is closed, not held forever.
func TestRelayWithoutTunnelsClosesConnections(t *testing.T) {
	listen, _ := freeLocalAddress()
	tunnel, _ := freeLocalAddress()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = serveRelay(ctx, listen, tunnel, 200*time.Millisecond, logr.Discard()) }()
	waitListening(t, listen)
	c, err := net.Dial("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read: %v, want EOF once the relay gives up", err)
	}
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s", addr)
}

// TestCheckAccessNamesDeniedOperations: the preflight lists exactly what
// the user may not do.
func TestCheckAccessNamesDeniedOperations(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		attrs := r.Spec.ResourceAttributes
		r.Status.Allowed = !(attrs.Resource == "mutatingwebhookconfigurations" && attrs.Verb == "create") &&
			attrs.Subresource != "portforward"
		return true, r, nil
	})
	denied, err := CheckAccess(context.Background(), client, NeededAccess(false), PreflightNamespace)
	if err != nil {
		t.Fatal(err)
	}
	if len(denied) != 1 || denied[0] != "create mutatingwebhookconfigurations.admissionregistration.k8s.io" {
		t.Fatalf("denied %v", denied)
	}
	denied, _ = CheckAccess(context.Background(), client, NeededAccess(true), PreflightNamespace)
	if len(denied) != 2 || denied[1] != "create pods/portforward" {
		t.Fatalf("with the relay, denied %v", denied)
	}
}
