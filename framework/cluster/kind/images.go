package kind

import (
	"fmt"
	"os"

	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
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
