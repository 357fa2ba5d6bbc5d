// Command contract-docs writes docs/contract.md from the contract inventory
// (internal/contract) and the release table (internal/contract/release),
// exactly as `run-conformance list --contract --markdown` prints it, without
// linking the control plane (only Kubernetes' feature gates and admission
// plugins). Run it through `make contract-docs`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/internal/contract"
	"github.com/admission-conformance/admission-conformance/internal/contract/release"
)

func main() {
	out := flag.String("o", "docs/contract.md", "the file to write")
	flag.Parse()
	rel, err := release.PinnedReport()
	if err != nil {
		fmt.Fprintln(os.Stderr, "contract-docs:", err)
		os.Exit(1)
	}
	newer, err := release.NewerReports()
	if err != nil {
		fmt.Fprintln(os.Stderr, "contract-docs:", err)
		os.Exit(1)
	}
	var b bytes.Buffer
	if err := release.WriteContractMarkdown(&b, contract.All(), rel, newer...); err != nil {
		fmt.Fprintln(os.Stderr, "contract-docs:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "contract-docs:", err)
		os.Exit(1)
	}
}
