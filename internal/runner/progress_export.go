package runner

import (
	"fmt"
	"io"
	"strings"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Progress reports cases that run elsewhere (the worker processes of run
// --parallel) the way Run reports its own: one plain line per finished
// case, and on a terminal a live line with the counts and what runs now.
type Progress struct{ p *progress }

// NewProgress is Options.Progress, Options.Live and Options.LiveWidth as
// one reporter.
func NewProgress(plain, live io.Writer, width func() int) *Progress {
	return &Progress{p: newProgress(plain, live, width)}
}

// Begin starts the report of total cases.
func (p *Progress) Begin(total int) { p.p.begin(total) }

// Grow adds n cases to the total: repetitions decided once the run is
// under way (run --repeat-only-measured).
func (p *Progress) Grow(n int) {
	p.p.mu.Lock()
	defer p.p.mu.Unlock()
	p.p.total += n
}

// DoneRepetition prints the line of one finished repetition of a case
// (run --repeat): the case's line, naming the repetition.
func (p *Progress) DoneRepetition(s results.Spec, index, count int) {
	p.p.doneCase(s, CaseName(s)+fmt.Sprintf(" [repetition %d/%d]", index, count))
}

// Running notes that what is called name (a spec, for a worker) runs now.
func (p *Progress) Running(name string) { p.p.startedName(name) }

// Stopped notes that name runs no more.
func (p *Progress) Stopped(name string) { p.p.stoppedName(name) }

// Done prints the line of one finished case.
func (p *Progress) Done(s results.Spec) { p.p.doneCase(s, CaseName(s)) }

// End stops the live line and leaves the final counts.
func (p *Progress) End() { p.p.end() }

// CaseName is how progress lines name a case: suite/ShortName, then the
// case's own text.
func CaseName(s results.Spec) string {
	leaf := strings.TrimPrefix(strings.TrimPrefix(s.Name, s.ShortName), " ")
	return caseName(s, leaf, s.Name)
}
