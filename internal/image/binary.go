package image

import (
	"debug/elf"
	"fmt"
	"os"
	"path"
	"path/filepath"
)

// libDirs are where the dynamic loader looks on Debian-like hosts.
var libDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// Binary returns the files that run the ELF binary at src as dest inside an
// image with nothing else in it: the binary, and for a dynamically linked
// one its program interpreter and every shared library it needs (found as
// the loader would on this host), at the same paths.
func Binary(src, dest string) ([]File, error) {
	files := []File{{Path: dest, Source: src, Mode: 0o755}}
	seen := map[string]bool{}
	var add func(p string) error
	add = func(p string) error {
		f, err := elf.Open(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		defer f.Close()
		for _, prog := range f.Progs {
			if prog.Type != elf.PT_INTERP {
				continue
			}
			buf := make([]byte, prog.Filesz)
			if _, err := prog.ReadAt(buf, 0); err != nil {
				return fmt.Errorf("%s: interpreter: %w", p, err)
			}
			interp := string(buf[:len(buf)-1]) // NUL-terminated
			if !seen[interp] {
				seen[interp] = true
				files = append(files, File{Path: interp, Source: interp, Mode: 0o755})
			}
		}
		libs, err := f.ImportedLibraries()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, lib := range libs {
			if seen[lib] {
				continue
			}
			seen[lib] = true
			found := ""
			for _, d := range libDirs {
				if _, err := os.Stat(filepath.Join(d, lib)); err == nil {
					found = path.Join(d, lib)
					break
				}
			}
			if found == "" {
				return fmt.Errorf("%s needs %s, not found in %v", p, lib, libDirs)
			}
			files = append(files, File{Path: found, Source: found, Mode: 0o755})
			if err := add(found); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(src); err != nil {
		return nil, err
	}
	return files, nil
}
