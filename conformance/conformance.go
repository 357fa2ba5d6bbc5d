// Package conformance is the door to the harness for a binary of one's own:
// a vendor who writes specs for its admission stack with the public
// packages under framework/ (spec, harness, fakewebhook, enforce, ...)
// registers them by importing their package and runs them with Main, which
// is the whole run-conformance command line (run, list, report, compare,
// certify, verify, cleanup, ...) over the specs registered in the binary:
// the same clusters (embedded, kind, kubeconfig), reports and certification
// bundle as the project's own suites.
//
//	package main
//
//	import (
//		"os"
//
//		"github.com/admission-conformance/admission-conformance/conformance"
//
//		_ "example.com/acme/conformance/specs" // registers the acme suite
//	)
//
//	func main() { os.Exit(conformance.Main(os.Args[1:])) }
//
// The binary is also the embedded cluster's nodes and fake node plugins and
// a parallel run's workers (it starts copies of itself): Main must be the
// first thing main does, before flags are parsed or anything is printed.
// A test binary can be the command line too: a TestMain that calls Main when
// the test re-executes itself (examples/vendor-suite does).
//
// A package of specs can also run under go test, one suite in the test's
// own process, without the command line (RunTest, with TestMain).
//
// cmd/run-conformance is this package's Main with the project's suites
// imported.
package conformance

import (
	"os"
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/cli"
	"github.com/admission-conformance/admission-conformance/internal/nodeset"
	"github.com/admission-conformance/admission-conformance/internal/suitetest"
)

// Main runs the command line with args (os.Args[1:]) over the specs
// registered in this binary and returns the exit code: 0 every selected spec
// passed, 1 a spec failed (or the run was interrupted once specs ran), 2 bad
// input or a cluster that could not be set up.
func Main(args []string) int { return cli.Main(args) }

// RunTest runs the specs of suite registered in the test binary under go
// test: it boots an embedded cluster of its own (or uses the cluster the
// kubeconfig in ADMISSION_CONFORMANCE_KUBECONFIG names), runs them in this
// process, reports each case on stdout, fails t if one fails or none ran,
// and tears the cluster down. ADMISSION_CONFORMANCE_REPORT_DIR writes
// results.json there. Ginkgo runs a process's specs once: one RunTest per
// test binary.
func RunTest(t *testing.T, suite string) { suitetest.Run(t, suite) }

// TestMain is the TestMain of a test binary that calls RunTest or re-runs
// itself as Main: it serves the child roles first (the embedded cluster's
// nodes are this binary too), then runs the tests.
//
//	func TestMain(m *testing.M) { conformance.TestMain(m) }
func TestMain(m *testing.M) {
	nodeset.RunIfChild()
	os.Exit(m.Run())
}
