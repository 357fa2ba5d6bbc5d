// Package targz writes gzipped tar archives of regular files held in
// memory: the same bytes for the same files, so an archive can be signed
// and compared.
package targz

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"time"
)

// File is one regular file of an archive.
type File struct {
	Name string
	Data []byte
}

// Pack returns a gzipped tar (PAX format) of files in the order given,
// each a regular file of mode 0644 modified at mtime (UTC, to the second;
// the zero time for none).
func Pack(files []File, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		hdr := &tar.Header{Name: f.Name, Mode: 0o644, Size: int64(len(f.Data)), ModTime: mtime.UTC().Truncate(time.Second), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
