package atomicfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/admission-conformance/admission-conformance/framework/atomicfile"
)

// A file a component watches (a plugin host's configuration) is replaced
// whole: a reader sees the old content or the new one.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "atomicfile")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "plugins.json")
	for _, content := range []string{"{\"v\":1}", "{\"v\":2}"} {
		if err := atomicfile.Write(path, []byte(content), 0o644); err != nil {
			panic(err)
		}
	}
	data, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	fmt.Println(string(data), len(entries))
	// Output: {"v":2} 1
}
