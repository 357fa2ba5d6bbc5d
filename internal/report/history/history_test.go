package history_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/report/history"
	"github.com/admission-conformance/admission-conformance/internal/report/reporttest"
)

func TestSaveKeepsEveryRunAndResolveFindsTheNewest(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "history")
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	var saved []string
	// The second and third runs start in the same second: neither may
	// overwrite the other.
	for i, started := range []time.Time{t0, t0.Add(time.Hour), t0.Add(time.Hour)} {
		res := reporttest.Results(started, float64(i+1))
		reportDir := t.TempDir()
		path, err := results.Write(reportDir, res)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := history.Save(hist, res, path)
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, dir)
	}
	if filepath.Base(saved[0]) != "20260501T100000Z" || filepath.Base(saved[2]) != "20260501T110000Z-2" {
		t.Errorf("run folders %v", saved)
	}
	if err := os.Mkdir(filepath.Join(hist, "not-a-run"), 0o755); err != nil {
		t.Fatal(err)
	}
	runs, err := history.Runs(hist)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].Dir != saved[0] || runs[2].Dir != saved[2] {
		t.Fatalf("runs %+v", runs)
	}
	res, file, err := history.Resolve(hist)
	if err != nil {
		t.Fatal(err)
	}
	if file != filepath.Join(saved[2], results.FileName) || res.Specs[0].Measurements[0].Value != 0.8*float64(3) {
		t.Errorf("newest run resolved to %s with %+v", file, res.Specs[0].Measurements)
	}
	if _, file, err := history.Resolve(saved[0]); err != nil || !strings.HasPrefix(file, saved[0]) {
		t.Errorf("a run folder resolved to %s, %v", file, err)
	}
	if _, _, err := history.Resolve(t.TempDir()); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("an empty folder: %v", err)
	}
}
