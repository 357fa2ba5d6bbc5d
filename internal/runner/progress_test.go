package runner

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

func caseReport(text string, state types.SpecState, message string) types.SpecReport {
	return types.SpecReport{
		LeafNodeType:            types.NodeTypeIt,
		ContainerHierarchyTexts: []string{"Suite"},
		LeafNodeText:            text,
		State:                   state,
		RunTime:                 100 * time.Millisecond,
		Failure:                 types.Failure{Message: message},
	}
}

func TestPlainProgressPrintsOneLinePerStartedCase(t *testing.T) {
	var plain bytes.Buffer
	p := newProgress(&plain, nil, nil)
	p.begin(2)
	p.started(caseReport("a", types.SpecStateInvalid, ""))
	p.done(caseReport("a", types.SpecStatePassed, ""))
	p.done(caseReport("never started", types.SpecStateSkipped, ""))
	p.done(caseReport("b", types.SpecStateFailed, "expected 1\nto equal 2"))
	p.end()
	out := plain.String()
	for _, want := range []string{"running 2 spec case(s)", "[1/2] PASSED        Suite a", "[2/2] FAILED        Suite b", "    expected 1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("plain output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "never started") || strings.Contains(out, "\r") {
		t.Errorf("plain output has a filtered case or a carriage return:\n%s", out)
	}
}

func TestLiveProgressRedrawsOneLineAndKeepsFailures(t *testing.T) {
	var plain, live bytes.Buffer
	p := newProgress(&plain, &live, func() int { return 60 })
	p.tick = time.Hour // redraws come from events only, so the output is predictable
	p.begin(2)
	p.started(caseReport("first case", types.SpecStateInvalid, ""))
	if !strings.HasSuffix(live.String(), "\r[0/2] 0s | 0 passed, 0 failed, 0 skipped | now: Suite firs…\x1b[K") {
		t.Errorf("live line while a case runs: %q", live.String())
	}
	p.done(caseReport("first case", types.SpecStatePassed, ""))
	p.done(caseReport("second case", types.SpecStateFailed, "boom"))
	p.end()
	out := live.String()
	if !strings.Contains(out, "\r\x1b[K[2/2] FAILED        Suite second case (0.1s, 0s elapsed)\n    boom\n") {
		t.Errorf("a failure is not kept as a line above the live line: %q", out)
	}
	if strings.Contains(out, "PASSED") {
		t.Errorf("a pass was printed as a line instead of counted in the live line: %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K[2/2] 0s | 1 passed, 1 failed, 0 skipped\n") {
		t.Errorf("final status: %q", out)
	}
	for _, line := range strings.Split(out, "\r") {
		if n := len([]rune(strings.TrimSuffix(line, "\x1b[K"))); !strings.Contains(line, "\n") && n > 59 {
			t.Errorf("live line of %d runes is wider than the terminal: %q", n, line)
		}
	}
	if !strings.Contains(plain.String(), "[1/2] PASSED") {
		t.Errorf("the plain log misses passes in live mode:\n%s", plain.String())
	}
}
