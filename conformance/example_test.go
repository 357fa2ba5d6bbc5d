package conformance_test

import (
	"os"

	"github.com/admission-conformance/admission-conformance/conformance"
)

// A vendor's binary: its specs register when their package is imported
// (blank import), and Main is the whole command line over them, first
// thing in main. examples/vendor-suite is a complete one.
func ExampleMain() {
	// import _ "example.com/acme-conformance/acme"
	os.Exit(conformance.Main(os.Args[1:]))
}
