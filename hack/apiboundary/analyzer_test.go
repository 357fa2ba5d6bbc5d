package apiboundary_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/admission-conformance/admission-conformance/hack/apiboundary"
)

// TestAnalyzerReportsEachCrossingImport: the vet tool flags each import
// that crosses the boundary (testdata's want comments), and none that does
// not (the door into internal/, framework/ into reference/, a test file).
func TestAnalyzerReportsEachCrossingImport(t *testing.T) {
	m := apiboundary.Module
	analysistest.Run(t, analysistest.TestData(), apiboundary.Analyzer,
		m+"/framework/leaky", m+"/framework/clean", m+"/reference/leaky", m+"/conformance")
}
