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
// cmd/run-conformance is this package's Main with the project's suites
// imported.
package conformance

import "github.com/admission-conformance/admission-conformance/internal/cli"

// Main runs the command line with args (os.Args[1:]) over the specs
// registered in this binary and returns the exit code: 0 every selected spec
// passed, 1 a spec failed (or the run was interrupted once specs ran), 2 bad
// input or a cluster that could not be set up.
func Main(args []string) int { return cli.Main(args) }
