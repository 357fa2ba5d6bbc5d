// Package selfimage writes the running binary as the harness's container
// image: what the in-cluster runs' Job and the relay pod run.
package selfimage

import (
	"fmt"
	"os"

	"github.com/admission-conformance/admission-conformance/internal/image"
)

// DefaultRef is the name the harness image of version gets unless the
// user names it.
func DefaultRef(version string) string {
	return "admission-conformance/run-conformance:" + version
}

// Write writes this binary, with the shared libraries it needs, as an
// image archive named refs, running as 65532 (nonroot), with env set;
// version labels it.
func Write(out string, refs []string, version string, env ...string) (image.Result, error) {
	exe, err := os.Executable()
	if err != nil {
		return image.Result{}, fmt.Errorf("cannot find this binary: %w", err)
	}
	files, err := image.Binary(exe, "/usr/local/bin/run-conformance")
	if err != nil {
		return image.Result{}, err
	}
	opts := []image.Option{image.WithFiles(files...), image.WithEntrypoint("/usr/local/bin/run-conformance"),
		image.WithUser("65532:65532"), image.WithLabel("org.opencontainers.image.version", version)}
	for _, r := range refs {
		opts = append(opts, image.WithRef(r))
	}
	for _, e := range env {
		opts = append(opts, image.WithEnv(e))
	}
	return image.WriteFile(out, opts...)
}
