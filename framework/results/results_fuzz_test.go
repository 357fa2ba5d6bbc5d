package results_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/fields"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

// FuzzRead: a results.json as report, compare, run --rerun-failed and an
// in-cluster run's --history read it (results.Read, directly or through
// internal/report/history). What reads renders as text, summarizes, and
// writes and reads back the same.
func FuzzRead(f *testing.F) {
	full := reporttest.Results(time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), 1)
	full.Summarize(fields.Cover)
	data, err := json.MarshalIndent(full, "", "  ")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, s := range []string{
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results"}`,
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results","specs":[{"state":"failed","measurements":[{"name":"m","value":1e308,"unit":"s","bound":-1e308,"lower":0,"labels":{"a":"b"}}],"harnessDelayMs":1e300,"journal":{"omitted":-1,"calls":[{}]}}]}`,
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results","startedAt":"0001-01-01T00:00:00Z","specs":null,"coverage":{}}`,
		`{"apiVersion":"admission-conformance.io/v1alpha1","kind":"Results","specs":[{"shortName":"A","fields":{"set":["x"]}}]}`,
		`{"apiVersion":"v0","kind":"Results"}`,
		`{"kind":"Results"`,
		`[]`,
		`null`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, results.FileName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := results.Read(path)
		if err != nil {
			return
		}
		for _, s := range r.Specs {
			_ = s.HarnessDelayText()
			for _, m := range s.Measurements {
				_ = m.String()
				_ = m.Within()
			}
			if s.Journal != nil {
				_ = s.Journal.Text()
			}
		}
		_ = r.Features.Supported()
		summarized := r
		summarized.Specs = append([]results.Spec(nil), r.Specs...)
		summarized.Summarize(fields.Cover)
		if summarized.Summary.Total != len(r.Specs) {
			t.Fatalf("summary of %d specs counts %d", len(r.Specs), summarized.Summary.Total)
		}
		out := filepath.Join(dir, "out")
		written, err := results.Write(out, r)
		if err != nil {
			// Only what JSON cannot hold (a time beyond year 9999).
			if !strings.Contains(err.Error(), "json") {
				t.Fatalf("results that read do not write: %v", err)
			}
			return
		}
		back, err := results.Read(written)
		if err != nil {
			t.Fatalf("written results do not read: %v", err)
		}
		first, _ := os.ReadFile(written)
		again, err := results.Write(filepath.Join(dir, "again"), back)
		if err != nil {
			t.Fatal(err)
		}
		second, _ := os.ReadFile(again)
		if !bytes.Equal(first, second) {
			t.Fatalf("results change when written and read back:\n%s\nthen\n%s", first, second)
		}
	})
}
