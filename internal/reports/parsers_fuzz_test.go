package reports_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/inputtest"
	"github.com/admission-conformance/admission-conformance/internal/reports"
)

// FuzzFetchedResults: the results.json an in-cluster run fetched, as run
// --in-cluster --history reads it (KeepInHistory): kept in the
// history, report.html redrawn with the trends over the kept runs.
func FuzzFetchedResults(f *testing.F) {
	for _, seed := range inputtest.ResultsSeeds(inputtest.T0) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reportDir := t.TempDir()
		if err := os.WriteFile(filepath.Join(reportDir, results.FileName), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := reports.KeepInHistory(reportDir, filepath.Join(t.TempDir(), "history"), nil); err != nil {
			// The in-cluster client's finish turns it into bad input.
			inputtest.CheckUsageError(t, "fetched results", string(data), exitcode.Usagef("%v", err))
			return
		}
		if _, err := os.Stat(filepath.Join(reportDir, "report.html")); err != nil {
			t.Fatalf("fetched results %q: %v", data, err)
		}
	})
}
