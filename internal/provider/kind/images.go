package kind

import (
	"context"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/defaults"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
	"sigs.k8s.io/kind/pkg/exec"
)

// ImageLoader is implemented by the clusters this provider starts: an image
// archive (OCI or docker-save, as `run-conformance image` writes) imported
// into every node's containerd, so pods run it without a registry.
type ImageLoader interface {
	LoadImageArchive(path string) error
}

// LoadImageArchive implements ImageLoader (what `kind load image-archive`
// does).
func (c *kindCluster) LoadImageArchive(path string) error {
	nodes, err := c.provider.ListInternalNodes(c.name) // not the load balancer
	if err != nil {
		return fmt.Errorf("list the nodes of kind cluster %s: %w", c.name, err)
	}
	for _, n := range nodes {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		err = nodeutils.LoadImageArchive(n, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("load %s into kind node %s: %w", path, n, err)
		}
	}
	return nil
}

var _ ImageLoader = (*kindCluster)(nil)

// ImageKubernetesVersion is the Kubernetes version a node image runs, as
// its /kind/version says (v1.37.2), read from a throwaway container of the
// image (kind's default image when image is empty).
func ImageKubernetesVersion(ctx context.Context, image string) (string, error) {
	if image == "" {
		image = defaults.Image
	}
	out, err := exec.Output(exec.CommandContext(ctx, "docker", "run", "--rm", "--entrypoint", "cat", image, "/kind/version"))
	if err != nil {
		return "", fmt.Errorf("read /kind/version of node image %s: %s", image, firstLine(err))
	}
	return strings.TrimSpace(string(out)), nil
}
