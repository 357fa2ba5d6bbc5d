package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/admission-conformance/admission-conformance/internal/check"
	"github.com/admission-conformance/admission-conformance/internal/exitcode"
	"github.com/admission-conformance/admission-conformance/internal/selfimage"
)

// defaultImage is the name `image` gives the harness image unless --ref
// says otherwise (and an in-cluster run on kind loads, unless --image does).
func defaultImage() string { return selfimage.DefaultRef(version) }

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
				return exitcode.Usagef("--output is required")
			}
			if info, err := os.Stat(out); err == nil && info.IsDir() {
				return exitcode.Usagef("--output %s is a directory: give a file name, e.g. %s", out, filepath.Join(out, "harness.tar"))
			}
			if info, err := os.Stat(filepath.Dir(out)); err != nil || !info.IsDir() {
				return exitcode.Usagef("--output %s: its directory %s does not exist: create it first or write elsewhere", out, filepath.Dir(out))
			}
			for _, r := range refs {
				if err := check.ImageRef("--ref", r, true); err != nil {
					return err
				}
			}
			if len(refs) == 0 {
				refs = []string{defaultImage()}
			}
			res, err := selfimage.Write(out, refs, version)
			if err != nil {
				return exitcode.Usagef("%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %v, manifest %s\n", out, res.Refs, res.Manifest)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the archive to write")
	cmd.Flags().StringArrayVar(&refs, "ref", nil, "image name with tag, repeatable (default "+defaultImage()+")")
	return cmd
}
