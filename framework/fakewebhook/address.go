//go:build unix

package fakewebhook

import (
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// ReserveUnusedAddress returns "127.0.0.1:PORT" for a port that refuses
// connections and that no other socket can take until release is called:
// a socket of this process is bound to it, without SO_REUSEADDR and
// without listening. A port merely found free and closed again could be
// taken meanwhile by another listener of the run (a worker's webhook
// server, an apiserver), and a webhook meant to be unreachable would then
// answer.
func ReserveUnusedAddress() (addr string, release func() error, err error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", nil, fmt.Errorf("reserve an unused address: %w", err)
	}
	release = func() error { return syscall.Close(fd) }
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		_ = release()
		return "", nil, fmt.Errorf("reserve an unused address: bind: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		_ = release()
		return "", nil, fmt.Errorf("reserve an unused address: %w", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		_ = release()
		return "", nil, fmt.Errorf("reserve an unused address: bound to %T", sa)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(in4.Port)), release, nil
}
