package childproc

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// UntilParentGone returns once the parent has closed this child's stdin
// pipe or died (the pipe reaches EOF either way). Only children started
// with the pipe (roles, Spec.EndWithParent) call it: a shell plugin's
// stdin is its input.
func UntilParentGone() {
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// ParentGone returns a context that ends when the parent closes the child's
// stdin (or dies) or the child gets SIGTERM or SIGINT: for a role, which
// ends when it does.
func ParentGone() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		UntilParentGone()
		cancel()
	}()
	go func() {
		<-signalled()
		cancel()
	}()
	return ctx
}

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
