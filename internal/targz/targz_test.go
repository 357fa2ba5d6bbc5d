package targz

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"testing"
	"time"
)

// TestPackKeepsOrderModeAndTime: the files come back in the order given,
// regular, mode 0644, stamped with mtime to the second; the same input
// gives the same bytes.
func TestPackKeepsOrderModeAndTime(t *testing.T) {
	mtime := time.Date(2026, 11, 28, 12, 30, 15, 999, time.FixedZone("x", 3600))
	files := []File{{"z.json", []byte(`{"a":1}`)}, {"a.log", bytes.Repeat([]byte("line\n"), 1000)}, {"empty", nil}}
	archive, err := Pack(files, mtime)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Pack(files, mtime)
	if !bytes.Equal(archive, again) {
		t.Error("the same files gave other bytes")
	}
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for i := 0; ; i++ {
		hdr, err := tr.Next()
		if err == io.EOF {
			if i != len(files) {
				t.Fatalf("%d files, want %d", i, len(files))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if hdr.Name != files[i].Name || !bytes.Equal(data, files[i].Data) {
			t.Errorf("file %d is %s (%d bytes), want %s (%d bytes)", i, hdr.Name, len(data), files[i].Name, len(files[i].Data))
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Mode != 0o644 || !hdr.ModTime.Equal(mtime.Truncate(time.Second)) {
			t.Errorf("%s: type %c, mode %o, mtime %v", hdr.Name, hdr.Typeflag, hdr.Mode, hdr.ModTime)
		}
	}
}

// TestPackWithoutTimeIsPlainUSTAR: without a time, the archive is what a
// tar.Writer writes by default for these headers (no PAX records).
func TestPackWithoutTimeIsPlainUSTAR(t *testing.T) {
	files := []File{{"results.json", []byte("{}")}, {"run.log", bytes.Repeat([]byte("x"), 5000)}}
	got, err := Pack(files, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		_ = tw.WriteHeader(&tar.Header{Name: f.Name, Mode: 0o644, Size: int64(len(f.Data)), Typeflag: tar.TypeReg})
		_, _ = tw.Write(f.Data)
	}
	_ = tw.Close()
	_ = gz.Close()
	if !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("archive differs from the default writer's (%d bytes, want %d)", len(got), buf.Len())
	}
}
