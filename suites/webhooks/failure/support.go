package failure

import (
	"time"
)

// timed runs f and returns how long it took on the monotonic clock.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
