package absence

import "testing"

func TestNotesAreSharedByTheRunsProcessesAndCleared(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Register{"shared": a, "local": Local()} {
		other := b
		if name == "local" {
			other = r
		}
		if _, ok := other.Noted("kubelet-events"); ok {
			t.Fatalf("%s: a note before any was made", name)
		}
		if err := r.Note("kubelet-events", "pod p: no event within 30s"); err != nil {
			t.Fatal(err)
		}
		if cause, ok := other.Noted("kubelet-events"); !ok || cause != "pod p: no event within 30s" {
			t.Fatalf("%s: noted %q, %v", name, cause, ok)
		}
		if _, ok := other.Noted("controller-status"); ok {
			t.Fatalf("%s: another note is on record", name)
		}
		other.Clear("kubelet-events")
		if _, ok := r.Noted("kubelet-events"); ok {
			t.Fatalf("%s: a cleared note is still on record", name)
		}
	}
	if err := a.Note("../escape", "x"); err == nil {
		t.Fatal("a note name with a path separator was accepted")
	}
}
