package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A worker's failure details reach the run's output without its progress
// lines (the parent prints its own) and without its own totals.
func TestWorkerDetailsKeepGinkgosAccountOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output.log")
	out := `
running 3 spec case(s)
[1/3] FAILED        webhooks/X: a (0.1s, 0s elapsed)
    Unexpected error:
[2/3] PASSED        webhooks/X: b (0.1s, 0s elapsed)
[1795560750] admission-conformance - 3/234 specs 

------------------------------
• [FAILED] [0.095 seconds]
X [It] a
  [FAILED] Unexpected error:
------------------------------

Summarizing 1 Failure:
  [FAIL] X [It] a

Ran 3 of 234 Specs in 0.362 seconds
FAIL! -- 2 Passed | 1 Failed | 0 Pending | 231 Skipped
run-conformance: 1 spec case(s) failed
`
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	got := ginkgoDetails(path)
	for _, want := range []string{"• [FAILED] [0.095 seconds]", "  [FAILED] Unexpected error:", "Summarizing 1 Failure:", "  [FAIL] X [It] a"} {
		if !strings.Contains(got, want) {
			t.Errorf("details lack %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"[1/3]", "[2/3]", "running 3", "    Unexpected error:", "3/234 specs", "Ran 3 of 234", "FAIL! --", "run-conformance:"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("details keep %q:\n%s", unwanted, got)
		}
	}
}
