package unixsock

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLongPathsDialListenAndCleanUp(t *testing.T) {
	for _, depth := range []int{1, 8} {
		dir := t.TempDir()
		for i := 0; i < depth; i++ {
			dir = filepath.Join(dir, strings.Repeat("d", 20))
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "plugin.sock")
		l, err := Listen(path)
		if err != nil {
			t.Fatalf("listen on %d-byte path: %v", len(path), err)
		}
		go func() {
			c, err := l.Accept()
			if err == nil {
				_, _ = c.Write([]byte("hello"))
				c.Close()
			}
		}()
		c, err := Dial(context.Background(), path)
		if err != nil {
			t.Fatalf("dial %d-byte path: %v", len(path), err)
		}
		got, _ := io.ReadAll(c)
		c.Close()
		if string(got) != "hello" {
			t.Errorf("read %q", got)
		}
		if err := l.Close(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("socket %s left behind (%v)", path, err)
		}
	}
}
