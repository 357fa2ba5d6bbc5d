// Command apiboundary-vet is apiboundary.Analyzer as a vet tool:
//
//	go build -o _output/apiboundary-vet ./hack/apiboundary/cmd/apiboundary-vet
//	go vet -vettool=$PWD/_output/apiboundary-vet ./...
//
// make lint runs it beside the standard vet checks.
package main

import (
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/admission-conformance/admission-conformance/hack/apiboundary"
)

func main() { unitchecker.Main(apiboundary.Analyzer) }
