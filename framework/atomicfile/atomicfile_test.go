package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteReplacesWithPerm(t *testing.T) {
	old := syscall.Umask(0o077) // perm is exact, whatever the umask
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, c := range []struct {
		data string
		perm os.FileMode
	}{{"one", 0o644}, {"two, longer", 0o600}, {"#!/bin/sh\n", 0o755}} {
		if err := Write(path, []byte(c.data), c.perm); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != c.data {
			t.Fatalf("read %q, %v; want %q", got, err, c.data)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != c.perm {
			t.Errorf("mode %v, want %v", fi.Mode().Perm(), c.perm)
		}
	}
	onlyFile(t, dir, "f.json")
}

func TestWriteFuncErrorLeavesOldContent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Write(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFunc(path, 0o644, func(w io.Writer) error {
		_, _ = w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v, want %v", err, boom)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content %q after a failed write, want the old one", got)
	}
	onlyFile(t, dir, "f")
}

func TestWriteIntoMissingDirFails(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "f"), nil, 0o644); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err %v, want not exist", err)
	}
}

// TestTempNameIsHidden: what a directory watcher may see before the rename
// is a hidden .tmp file, which no loader of *.yaml, *.json or *.conf reads.
func TestTempNameIsHidden(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.yaml")
	var seen []string
	_ = WriteFunc(path, 0o644, func(io.Writer) error {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			seen = append(seen, e.Name())
		}
		return nil
	})
	if len(seen) != 1 || seen[0][0] != '.' || filepath.Ext(seen[0]) != ".tmp" {
		t.Fatalf("during the write the dir held %v, want one hidden .tmp file", seen)
	}
}

func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != name {
		t.Errorf("dir holds %v, want only %s", entries, name)
	}
}
