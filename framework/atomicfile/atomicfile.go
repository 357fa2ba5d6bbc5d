// Package atomicfile replaces a file's content in one step: a reader sees
// the old content or the new, never a part, and a watcher of the directory
// never sees a half-written file under the final name.
//
// It is public because the public packages that write files a running
// component watches and reads at any moment write them with it, whole or
// not at all: staticmanifest (static admission manifests), nodedecision
// (a node's plugin host configuration) and fakenodeplugin (plugins'
// entries and journals, written by the plugin processes themselves). The
// harness writes its own state files with it too.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write replaces path's content with data, as WriteFunc does.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc replaces path's content with what fill writes: into a temporary
// file in path's directory, named "."+base+"-RANDOM.tmp" (hidden, and with
// an ending no loader of manifests or configurations reads), given mode
// perm exactly (not masked by the umask), then renamed onto path. On any
// error the temporary file is removed and path is left as it was.
func WriteFunc(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	err = fill(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
