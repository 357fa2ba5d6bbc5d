package image

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// epoch is every entry's timestamp, so layers are reproducible.
var epoch = time.Unix(0, 0).UTC()

type layerSource struct {
	dir   string
	files []File
}

// blob is content written to a temp file, with its digest.
type blob struct {
	path   string
	digest string // sha256:<hex>
	size   int64
}

// writeLayer writes the layer tar into dir and returns it as a blob.
func writeLayer(dir string, src layerSource) (blob, error) {
	f, err := os.CreateTemp(dir, "layer-*")
	if err != nil {
		return blob{}, err
	}
	defer f.Close()
	h := sha256.New()
	counter := &countWriter{w: io.MultiWriter(f, h)}
	tw := tar.NewWriter(counter)
	if src.dir != "" {
		err = tarDir(tw, src.dir)
	} else {
		err = tarFiles(tw, src.files)
	}
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return blob{}, fmt.Errorf("layer from %s: %w", describe(src), err)
	}
	return blob{path: f.Name(), digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), size: counter.n}, nil
}

func describe(src layerSource) string {
	if src.dir != "" {
		return src.dir
	}
	return fmt.Sprintf("%d file(s)", len(src.files))
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// tarDir writes the tree under root, in lexical order, hard links kept.
func tarDir(tw *tar.Writer, root string) error {
	type inode struct{ dev, ino uint64 }
	seen := map[inode]string{}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSocket != 0 {
			return nil
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if fi.IsDir() {
			hdr.Name += "/"
		}
		normalize(hdr)
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			hdr.Uid, hdr.Gid = int(st.Uid), int(st.Gid)
			if fi.Mode().IsRegular() && st.Nlink > 1 {
				key := inode{uint64(st.Dev), st.Ino}
				if first, ok := seen[key]; ok {
					hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first, 0
					return tw.WriteHeader(hdr)
				}
				seen[key] = hdr.Name
			}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			return copyFile(tw, p)
		}
		return nil
	})
}

// tarFiles writes files (and their parent directories), sorted by path.
func tarFiles(tw *tar.Writer, files []File) error {
	files = append([]File(nil), files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	dirs := map[string]bool{}
	for _, f := range files {
		if !path.IsAbs(f.Path) {
			return fmt.Errorf("image path %q is not absolute", f.Path)
		}
		name := strings.TrimPrefix(path.Clean(f.Path), "/")
		var parents []string
		for d := path.Dir(name); d != "." && !dirs[d]; d = path.Dir(d) {
			parents = append(parents, d)
			dirs[d] = true
		}
		for i := len(parents) - 1; i >= 0; i-- {
			hdr := &tar.Header{Typeflag: tar.TypeDir, Name: parents[i] + "/", Mode: 0o755}
			normalize(hdr)
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
		}
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		size := int64(len(f.Content))
		if f.Source != "" {
			fi, err := os.Stat(f.Source)
			if err != nil {
				return err
			}
			size = fi.Size()
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(mode.Perm()), Size: size}
		normalize(hdr)
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if f.Source == "" {
			if _, err := tw.Write(f.Content); err != nil {
				return err
			}
			continue
		}
		if err := copyFile(tw, f.Source); err != nil {
			return err
		}
	}
	return nil
}

func normalize(hdr *tar.Header) {
	hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = epoch, time.Time{}, time.Time{}
	hdr.Uname, hdr.Gname = "", ""
	hdr.Format = tar.FormatPAX
	hdr.PAXRecords = nil
}

func copyFile(w io.Writer, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
