package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/framework/image"
)

// DefaultPluginImage is the name `image` gives the harness image unless
// --ref says otherwise.
var DefaultPluginImage = "admission-conformance/run-conformance:" + version

func newImageCommand() *cobra.Command {
	var out string
	var refs []string
	cmd := &cobra.Command{
		Use:   "image",
		Short: "Write this binary as a container image (OCI archive), to push for --plugin-image",
		Long: "image writes this very binary, with the shared libraries it needs, as a container image: one tar " +
			"that is an OCI image layout (skopeo copy oci-archive:FILE docker://REGISTRY/NAME:TAG, ctr images import) " +
			"and that `docker load` also reads. No container engine is needed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError("--output is required")
			}
			if info, err := os.Stat(out); err == nil && info.IsDir() {
				return usageError("--output %s is a directory: give a file name, e.g. %s", out, filepath.Join(out, "harness.tar"))
			}
			if info, err := os.Stat(filepath.Dir(out)); err != nil || !info.IsDir() {
				return usageError("--output %s: its directory %s does not exist: create it first or write elsewhere", out, filepath.Dir(out))
			}
			for _, r := range refs {
				if err := checkImageRef("--ref", r, true); err != nil {
					return err
				}
			}
			if len(refs) == 0 {
				refs = []string{DefaultPluginImage}
			}
			res, err := writeHarnessImage(out, refs)
			if err != nil {
				return usageError("%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %v, manifest %s\n", out, res.Refs, res.Manifest)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the archive to write")
	cmd.Flags().StringArrayVar(&refs, "ref", nil, "image name with tag, repeatable (default "+DefaultPluginImage+")")
	return cmd
}

// writeHarnessImage writes this binary, with the shared libraries it needs,
// as an image archive named refs, running as 65532 (nonroot), with env set.
func writeHarnessImage(out string, refs []string, env ...string) (image.Result, error) {
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
