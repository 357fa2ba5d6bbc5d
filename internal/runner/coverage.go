package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/coverage"
	"sync"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// CoverCasesEnv names a directory: when it is set in a binary built with
// `go build -cover -covermode=atomic`, the serial run writes the coverage
// counters of this process after every case into DIR/<spec short name>/
// and clears them, so each spec's share of the implementation's code can be
// told apart (make coverage; the generated mutants run only the specs that
// cover their statement). Counters from the cluster's start-up up to the
// first case land in DIR/_start. It is a measurement mode: the run's own
// results do not depend on it, and a binary without coverage ignores it.
const CoverCasesEnv = "ADMISSION_CONFORMANCE_COVER_CASES"

// StartDir is where the counters from start-up to the first case go.
const StartDir = "_start"

// caseCoverage writes the counters of each case into its spec's directory.
type caseCoverage struct {
	dir     string
	started sync.Once
	metas   map[string]bool
}

func newCaseCoverage() *caseCoverage {
	dir := os.Getenv(CoverCasesEnv)
	if dir == "" {
		return nil
	}
	return &caseCoverage{dir: dir, metas: map[string]bool{}}
}

// before attributes everything counted before the first case to start-up.
func (c *caseCoverage) before(ginkgo.SpecReport) {
	c.started.Do(func() { c.dump(StartDir) })
}

// after attributes what was counted since the last dump to the case's spec.
func (c *caseCoverage) after(r ginkgo.SpecReport) {
	if r.StartTime.IsZero() || r.State == types.SpecStateSkipped {
		return // never ran: filtered out; what was counted goes to the next case
	}
	name := "_unnamed"
	if meta, ok := spec.FromLabels(r.Labels()); ok {
		name = meta.ShortName
	}
	c.dump(name)
}

// dump writes the counters (and, once per directory, the meta-data that
// reading them needs) and clears them. A failure is reported on stderr: the
// attribution then has a hole, which the reader sees as a spec without data.
func (c *caseCoverage) dump(name string) {
	dir := filepath.Join(c.dir, name)
	err := os.MkdirAll(dir, 0o755)
	if err == nil && !c.metas[dir] {
		if err = coverage.WriteMetaDir(dir); err == nil {
			c.metas[dir] = true
		}
	}
	if err == nil {
		err = coverage.WriteCountersDir(dir)
	}
	if err == nil {
		err = coverage.ClearCounters()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "coverage of %s: %v\n", name, err)
	}
}
