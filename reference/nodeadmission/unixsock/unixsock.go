// Package unixsock dials and listens on Unix sockets whose paths are longer
// than the kernel's limit (107 bytes on Linux), which deep temp dirs reach
// easily. A long path is reached through /proc/self/fd/N/<name>, N being a
// descriptor of the socket's directory held for the duration of the call.
package unixsock

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// maxPath is the longest path sockaddr_un holds (108 bytes with the NUL).
const maxPath = 107

// Dial connects to the socket at path.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var conn net.Conn
	err := viaShortPath(path, func(short string) error {
		var err error
		conn, err = (&net.Dialer{}).DialContext(ctx, "unix", short)
		return err
	})
	return conn, err
}

// Listen creates a socket at path. Closing the listener removes the socket
// file (by its real path, which the short path no longer reaches).
func Listen(path string) (net.Listener, error) {
	var l *net.UnixListener
	err := viaShortPath(path, func(short string) error {
		addr, err := net.ResolveUnixAddr("unix", short)
		if err != nil {
			return err
		}
		l, err = net.ListenUnix("unix", addr)
		return err
	})
	if err != nil {
		return nil, err
	}
	l.SetUnlinkOnClose(false)
	return &listener{UnixListener: l, path: path}, nil
}

type listener struct {
	*net.UnixListener
	path string
}

func (l *listener) Close() error {
	err := l.UnixListener.Close()
	if rmErr := os.Remove(l.path); rmErr != nil && !os.IsNotExist(rmErr) && err == nil {
		err = rmErr
	}
	return err
}

// viaShortPath calls f with path itself when it fits, or with a path through
// an open descriptor of its directory.
func viaShortPath(path string, f func(string) error) error {
	if len(path) <= maxPath {
		return f(path)
	}
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open socket dir: %w", &os.PathError{Op: "open", Path: filepath.Dir(path), Err: err})
	}
	defer unix.Close(fd)
	short := fmt.Sprintf("/proc/self/fd/%d/%s", fd, filepath.Base(path))
	if len(short) > maxPath {
		return fmt.Errorf("socket name %q is too long", filepath.Base(path))
	}
	return f(short)
}
