package logs

import (
	"os"

	"golang.org/x/sys/unix"
)

// CaptureStderr points file descriptor 2 at f until restore is called. Some
// in-process components log straight to stderr from loggers made at package
// init (the apiserver's etcd client, for one), beyond klog's reach. Go's
// os.Stderr is descriptor 2, so anything written to it meanwhile lands in f
// too; callers print their own messages after restore.
func CaptureStderr(f *os.File) (restore func(), err error) {
	saved, err := unix.Dup(2)
	if err != nil {
		return nil, err
	}
	if err := unix.Dup3(int(f.Fd()), 2, 0); err != nil {
		unix.Close(saved)
		return nil, err
	}
	return func() {
		_ = unix.Dup3(saved, 2, 0)
		_ = unix.Close(saved)
	}, nil
}
