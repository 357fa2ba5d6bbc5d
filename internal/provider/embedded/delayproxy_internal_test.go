package embedded

import (
	"context"
	"io"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap/zapcore"
)

func TestDelayProxyDelaysEtcdAnswers(t *testing.T) {
	e, err := startEtcd(t.TempDir(), time.Minute, zapcore.AddSync(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	defer e.stop()
	p, err := startDelayProxy(hostPort(e.clientURL), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{p.url()}, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	t0 := time.Now()
	if _, err := c.Get(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	before := time.Since(t0)
	p.enable()
	t0 = time.Now()
	if _, err := c.Get(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	after := time.Since(t0)
	t.Logf("get before enable %s, after %s", before, after)
	if after < 300*time.Millisecond {
		t.Fatalf("not delayed: %s", after)
	}
}
