// Command contract-docs writes docs/contract.md from the contract inventory
// (framework/contract), exactly as `run-conformance list --contract
// --markdown` prints it, without linking the control plane. Run it through
// `make contract-docs`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/framework/contract"
)

func main() {
	out := flag.String("o", "docs/contract.md", "the file to write")
	flag.Parse()
	var b bytes.Buffer
	if err := contract.WriteMarkdown(&b, contract.All()); err != nil {
		fmt.Fprintln(os.Stderr, "contract-docs:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "contract-docs:", err)
		os.Exit(1)
	}
}
