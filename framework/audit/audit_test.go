package audit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEventsSkipsPartialLinesAndMissingFiles(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "audit.log")
	content := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"create","objectRef":{"resource":"configmaps","namespace":"ns","name":"a"},"annotations":{"k":"v"}}
{"kind":"Event","apiVersion":"audit.k8s.io/v1","stage":"ResponseComplete","verb":"create","objectRef":{"resource":"configmaps","namespace":"ns","name":"b"}}
{"kind":"Event","apiVersi`
	if err := os.WriteFile(log, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	events, err := Events([]string{filepath.Join(dir, "missing.log"), log}, ForObject("create", "configmaps", "ns", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Annotations["k"] != "v" {
		t.Fatalf("events = %+v", events)
	}
}
