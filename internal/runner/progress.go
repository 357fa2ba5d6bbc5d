package runner

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/admission-conformance/admission-conformance/framework/results"
)

// progress reports the run as it goes: one plain line per finished case
// ("[3/17] PASSED ordering/Name (0.1s, 4s elapsed)") for logs and pipes, and,
// on a terminal, a live line redrawn in place with counts, the case running
// now and the elapsed time.
type progress struct {
	plain io.Writer
	live  io.Writer // nil unless a terminal
	width func() int
	tick  time.Duration

	mu      sync.Mutex
	total   int
	counts  map[results.State]int
	running []string // cases running now, in the order they started
	start   time.Time
	drawn   bool // the live line is on screen
	stop    chan struct{}
	stopped chan struct{}
}

func newProgress(plain, live io.Writer, width func() int) *progress {
	if plain == nil {
		plain = io.Discard
	}
	if width == nil {
		width = func() int { return 0 }
	}
	return &progress{plain: plain, live: live, width: width, tick: time.Second, counts: map[results.State]int{}}
}

func (p *progress) begin(total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.start = total, time.Now()
	line := fmt.Sprintf("\nrunning %d spec case(s)\n", total)
	fmt.Fprint(p.plain, line)
	if p.live == nil {
		return
	}
	fmt.Fprint(p.live, line)
	p.drawLocked()
	// The elapsed time moves while a case runs: redraw every tick.
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(p.tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.drawLocked()
				p.mu.Unlock()
			}
		}
	}()
}

// started notes the case that runs now. Cases the selection left out are
// reported too, already skipped; they never run.
func (p *progress) started(r ginkgo.SpecReport) {
	if r.State.Is(types.SpecStateSkipped) || r.LeafNodeType != types.NodeTypeIt {
		return
	}
	p.startedName(caseName(results.FromSpecReport(r), r.LeafNodeText, r.FullText()))
}

// startedName notes a case (or a group of cases) running now.
func (p *progress) startedName(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running = append(p.running, name)
	p.drawLocked()
}

// stoppedName notes that what startedName noted runs no more.
func (p *progress) stoppedName(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stoppedLocked(name)
	p.drawLocked()
}

func (p *progress) stoppedLocked(name string) {
	for i, n := range p.running {
		if n == name {
			p.running = append(p.running[:i:i], p.running[i+1:]...)
			return
		}
	}
}

func (p *progress) done(r ginkgo.SpecReport) {
	s := results.FromSpecReport(r)
	if s.State == results.Skipped && r.State == types.SpecStateSkipped && r.Failure.Message == "" {
		return // filtered out, never started
	}
	p.doneCase(s, caseName(s, r.LeafNodeText, r.FullText()))
}

// doneCase prints the line of one finished case.
func (p *progress) doneCase(s results.Spec, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[s.State]++
	p.stoppedLocked(name)
	line := fmt.Sprintf("[%d/%d] %-13s %s (%.1fs, %s elapsed)", p.doneLocked(), p.total, strings.ToUpper(string(s.State)),
		name, s.Duration, time.Since(p.start).Round(time.Second))
	if s.State != results.Passed && s.Message != "" {
		line += "\n    " + firstLine(s.Message)
	}
	fmt.Fprintln(p.plain, line)
	if p.live == nil {
		return
	}
	if s.State != results.Passed {
		// What did not pass stays on screen above the live line.
		p.clearLocked()
		fmt.Fprintln(p.live, line)
	}
	p.drawLocked()
}

// end stops redrawing and leaves the final counts on screen.
func (p *progress) end() {
	if p.live == nil || p.stop == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(p.live, p.statusLocked())
}

func (p *progress) doneLocked() int {
	n := 0
	for _, c := range p.counts {
		n += c
	}
	return n
}

func (p *progress) statusLocked() string {
	status := fmt.Sprintf("[%d/%d] %s | %d passed, %d failed, %d skipped", p.doneLocked(), p.total,
		time.Since(p.start).Round(time.Second), p.counts[results.Passed], p.counts[results.Failed], p.counts[results.Skipped])
	if n := p.counts[results.NotSupported]; n > 0 {
		status += fmt.Sprintf(", %d not supported", n)
	}
	switch len(p.running) {
	case 0:
	case 1:
		status += " | now: " + p.running[0]
	default:
		status += fmt.Sprintf(" | now (%d): %s", len(p.running), strings.Join(p.running, ", "))
	}
	return status
}

// drawLocked rewrites the live line in place: carriage return, the line cut
// to the terminal's width (a wrapped line could not be rewritten), and an
// erase of whatever a longer previous line left.
func (p *progress) drawLocked() {
	if p.live == nil {
		return
	}
	line := p.statusLocked()
	if w := p.width(); w > 1 && len([]rune(line)) > w-1 {
		line = string([]rune(line)[:w-2]) + "…"
	}
	fmt.Fprint(p.live, "\r"+line+"\x1b[K")
	p.drawn = true
}

func (p *progress) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.live, "\r\x1b[K")
		p.drawn = false
	}
}

// caseName is suite/ShortName, then the case's own text (leaf) when the
// spec has several cases, so that every line names what ran; fullText
// when the case belongs to no spec.
func caseName(s results.Spec, leaf, fullText string) string {
	if s.ShortName == "" {
		return fullText
	}
	name := s.Suite + "/" + s.ShortName
	if leaf != "" {
		name += ": " + leaf
	}
	return name
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
