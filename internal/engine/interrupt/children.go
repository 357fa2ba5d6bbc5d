package interrupt

import (
	"os"
	"time"

	"github.com/admission-conformance/admission-conformance/internal/childproc"
	"github.com/admission-conformance/admission-conformance/internal/rundir"
)

// forceSettle bounds how long RemoveOwnDirs looks again for removed dirs
// coming back: well under the 1 s in which the third signal must exit.
const forceSettle = 200 * time.Millisecond

// RemoveOwnDirs kills the children, from the record of what this process
// started (childproc.KillAll), and removes this process's run dirs,
// then looks again, for at most forceSettle, until two looks in a row see
// no new child, no new run dir and no removed dir come back: a worker that
// was starting as the signal came (missed by the first kill), or one still
// running for a moment, can re-create a removed path (its report dir and
// the shared dir are made with MkdirAll), and such a dir carries no owner
// file, so no later cleanup would know it; a cluster still starting in this
// process can make its dir after the first removal.
func RemoveOwnDirs() []string {
	killed := map[int]bool{}
	for _, pid := range childproc.KillAll() {
		killed[pid] = true
	}
	removed := rundir.RemoveOwn("")
	quiet := 0
	for deadline := time.Now().Add(forceSettle); quiet < 2 && time.Now().Before(deadline); {
		time.Sleep(forceSettle / 10)
		quiet++
		for _, pid := range childproc.KillAll() {
			if !killed[pid] {
				killed[pid] = true
				quiet = 0 // one that started after the first kill
			}
		}
		for _, d := range removed {
			if _, err := os.Lstat(d); err == nil {
				quiet = 0
				_ = os.RemoveAll(d)
			}
		}
		// And one made since (a cluster still starting makes its dir).
		if more := rundir.RemoveOwn(""); len(more) > 0 {
			quiet = 0
			removed = append(removed, more...)
		}
	}
	return removed
}
