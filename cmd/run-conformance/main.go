// Command run-conformance boots a cluster, installs fake admission plugins
// and runs the admission conformance specs against it (internal/cli is the
// command line; a vendor's binary with its own specs calls the same
// conformance.Main).
//
// Exit codes: 0 all selected specs passed (compare: no regression), 1 a spec
// failed (compare: a regression) or the run was interrupted once specs ran,
// 2 bad input, a cluster that could not be set up, or a panic outside the
// specs (a bug).
package main

import (
	"os"

	"github.com/admission-conformance/admission-conformance/conformance"

	// The suites register their specs at init.
	_ "github.com/admission-conformance/admission-conformance/suites/initializers"
	_ "github.com/admission-conformance/admission-conformance/suites/nodeadmit"
	_ "github.com/admission-conformance/admission-conformance/suites/ordering"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks"
)

func main() { os.Exit(conformance.Main(os.Args[1:])) }
