package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"

	// The project's suites, as cmd/run-conformance registers them.
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	_ "github.com/admission-conformance/admission-conformance/suites/initializers"
	_ "github.com/admission-conformance/admission-conformance/suites/nodeadmit"
	_ "github.com/admission-conformance/admission-conformance/suites/ordering"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks"
)

// The harness's own tests run the CLI as a child process (this test binary,
// re-executed as main), because Ginkgo runs specs once per process and
// because exit codes and leftovers are what users see.
const asMain = "RUN_CONFORMANCE_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	nodeset.RunIfChild() // the embedded cluster's nodes are this binary too
	if os.Getenv(asMain) == "1" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

type cliResult struct {
	code           int
	stdout, stderr string
	tmp            string // the child's TMPDIR
	work           string // the child's working dir
}

// runCLI runs the CLI with args in a fresh TMPDIR and working dir.
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	return runCLIIn(t, t.TempDir(), t.TempDir(), nil, args...)
}

// leftovers lists what a run left in its TMPDIR, ignoring Go's own build
// cache folders.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	return left
}

func TestListNeedsNoCluster(t *testing.T) {
	r := runCLI(t, "list")
	if r.code != 0 || !strings.Contains(r.stdout, "MutatingBeforeValidating") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "list", "--features", "-o", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"MutatingWebhook"`) {
		t.Fatalf("exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

func readResults(t *testing.T, dir string) results.Results {
	t.Helper()
	res, err := results.Read(filepath.Join(dir, results.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func findSpec(t *testing.T, res results.Results, shortName string) results.Spec {
	t.Helper()
	for _, s := range res.Specs {
		if s.ShortName == shortName {
			return s
		}
	}
	t.Fatalf("no result for %s in %+v", shortName, res.Specs)
	return results.Spec{}
}

// mustExit stops the test unless the CLI exited with want, showing what it
// printed.
func (r cliResult) mustExit(t *testing.T, want int) {
	t.Helper()
	if r.code != want {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
	}
}
