// Command acme-conformance is ACME's conformance binary: the whole
// run-conformance command line (run, list, report, compare, certify,
// verify, ...) over the acme suite (package acme), on the harness's
// clusters. For example:
//
//	go build -o acme-conformance .
//	./acme-conformance list
//	./acme-conformance run --suite acme --report-dir _artifacts
//	./acme-conformance certify keygen --out acme.key
//	./acme-conformance certify --suite acme --sign-key acme.key --report-dir _artifacts
//	./acme-conformance verify _artifacts/certification.tar.gz --key acme.key.pub
package main

import (
	"os"

	"github.com/admission-conformance/admission-conformance/conformance"

	_ "example.com/acme-conformance/acme" // registers the acme suite
)

func main() { os.Exit(conformance.Main(os.Args[1:])) }
