// Command gen writes internal/contract/observability/zz_generated_pinned.go:
// the audit annotation keys and metrics internal/contract/observability/derive
// finds in the pinned k8s.io/apiserver sources. Run it through
// `go generate ./internal/contract/observability`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/internal/contract/observability/derive"
)

func main() {
	out := flag.String("o", "zz_generated_pinned.go", "the file to write")
	dir := flag.String("C", ".", "a directory inside the module whose go.mod pins the sources")
	flag.Parse()
	inv, err := derive.Derive(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "observability gen:", err)
		os.Exit(1)
	}
	src, err := derive.GoSource(inv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "observability gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "observability gen:", err)
		os.Exit(1)
	}
}
