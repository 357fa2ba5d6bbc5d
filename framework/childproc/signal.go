package childproc

import (
	"os"
	"os/signal"
	"syscall"
)

// signalled is closed on the first SIGTERM or SIGINT.
func signalled() <-chan struct{} {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan struct{})
	go func() {
		<-ch
		close(done)
	}()
	return done
}
