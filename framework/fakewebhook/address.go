package fakewebhook

import (
	"fmt"
	"net"
)

// UnusedAddress returns "127.0.0.1:PORT" for a port that was listening a
// moment ago and is now closed, so a webhook pointed at it gets "connection
// refused". Another process could take the port in between; on a test
// machine that is unlikely enough to be worth the simplicity.
func UnusedAddress() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find unused address: %w", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", fmt.Errorf("release %s: %w", addr, err)
	}
	return addr, nil
}
