package clusterrun

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzUnpack: the report dir an in-cluster run published, as `results` and
// run --in-cluster unpack it: whatever the archive holds, nothing lands
// outside the report dir and only plain files land in it.
func FuzzUnpack(f *testing.F) {
	archive := func(hdr tar.Header, data string) []byte {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		hdr.Size = int64(len(data))
		_ = tw.WriteHeader(&hdr)
		_, _ = tw.Write([]byte(data))
		_ = tw.Close()
		_ = gz.Close()
		return buf.Bytes()
	}
	for _, name := range []string{"results.json", "../escape", "/abs", "a/b", ".", "..", "", "/"} {
		f.Add(archive(tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg}, "x"))
	}
	f.Add(archive(tar.Header{Name: "l", Linkname: "/etc/passwd", Typeflag: tar.TypeSymlink}, ""))
	f.Add(archive(tar.Header{Name: "d", Mode: 0o755, Typeflag: tar.TypeDir}, ""))
	dir := f.TempDir()
	for name, data := range map[string]string{"results.json": "{}", "report.yaml": "kind: ConformanceReport\n", "run.log": "x\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	packed, err := pack(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(packed)
	f.Add([]byte{})
	f.Add([]byte("not gzip"))
	f.Fuzz(func(t *testing.T, archive []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "report")
		files, err := unpack(archive, dir)
		entries, rerr := os.ReadDir(root)
		if rerr != nil {
			t.Fatal(rerr)
		}
		for _, e := range entries {
			if e.Name() != "report" {
				t.Fatalf("unpack wrote %s outside the report dir", e.Name())
			}
		}
		if err == nil && files == nil && len(archive) == 0 {
			t.Fatal("an empty archive unpacked")
		}
		inside, _ := os.ReadDir(dir)
		for _, e := range inside {
			if !e.Type().IsRegular() {
				t.Fatalf("unpack left %s, not a plain file", e.Name())
			}
		}
		if err == nil {
			if !slices.IsSorted(files) {
				t.Fatalf("unpack lists %v, not sorted", files)
			}
			for _, name := range files {
				if info, serr := os.Lstat(filepath.Join(dir, name)); serr != nil || !info.Mode().IsRegular() {
					t.Fatalf("unpack lists %q but it is not a file in the report dir: %v", name, serr)
				}
			}
		}
	})
}
