//go:build unix

package quiet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockFile is one flock(2) lock. flock locks belong to the open file, so
// two lockFiles on one path conflict even inside one process.
type lockFile struct{ f *os.File }

func openLock(path string) (*lockFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("quiet gate: %w", err)
	}
	return &lockFile{f: f}, nil
}

// lock takes the lock, shared or exclusive, polling every interval until
// ctx ends (flock itself cannot be cancelled).
func (l *lockFile) lock(ctx context.Context, exclusive bool, interval time.Duration) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		err := syscall.Flock(int(l.f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("quiet gate: lock %s: %w", l.f.Name(), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("quiet gate: waiting for %s: %w", l.f.Name(), context.Cause(ctx))
		case <-t.C:
		}
	}
}

func (l *lockFile) unlock() error { return syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) }

func (l *lockFile) close() error { return l.f.Close() }
