package kubeconfig

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/features"
)

// TestAwaitWebhookRouteWaitsForTheListener: refused connections are waited
// out; a listener that never comes is an error naming the address.
func TestAwaitWebhookRouteWaitsForTheListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // refused until it listens again
	c := &served{existing: &existing{}, advertise: addr}
	relisten := make(chan net.Listener, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
		}
		relisten <- l
	}()
	started := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.AwaitWebhookRoute(ctx, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(started); waited < 300*time.Millisecond+serviceProxySync {
		t.Errorf("returned after %v, before the listener plus %v", waited, serviceProxySync)
	}
	(<-relisten).Close()

	short, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	if err := c.AwaitWebhookRoute(short, 20*time.Millisecond); err == nil || !strings.Contains(err.Error(), addr) {
		t.Errorf("no listener: %v", err)
	}
}

// TestNamedNodesDeclareNodeAdmission: nodes the user names are the
// cluster's nodes, each with NodeAdmission, and the cluster declares it.
func TestNamedNodesDeclareNodeAdmission(t *testing.T) {
	if c := (&existing{}); len(c.Nodes()) != 0 || c.Capabilities().Has(features.NodeAdmission) {
		t.Errorf("no nodes named: %v, %v", c.Nodes(), c.Capabilities())
	}
	c := &existing{nodes: []string{"a", "b"}}
	nodes := c.Nodes()
	if len(nodes) != 2 || nodes[0].Name != "a" || !nodes[1].Capabilities.Has(features.NodeAdmission) || !c.Capabilities().Has(features.NodeAdmission) {
		t.Errorf("nodes %v, capabilities %v", nodes, c.Capabilities())
	}
}
