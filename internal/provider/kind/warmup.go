package kind

import (
	"context"
	"slices"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/internal/nodeset"
)

// A fresh kubelet shows its first rejections only at its status manager's
// first full sync, ~10 s after it starts; from then on in tens of
// milliseconds on a worker (measured here: 25-140 ms; a control plane of an
// ha cluster on 2 cores: ~1.5 s). The provider sends the nodes specs place
// pods on (the workers, or the control planes of a cluster without any,
// and the harness's own node)
// pods they must reject until two in a row show within warmRejection, so
// specs time steady-state kubelets, as the embedded cluster's hollow nodes
// are warmed up. A node that does not warm up is logged, not fatal: specs
// that time it say so.
const (
	warmRejection = time.Second
	warmUpTimeout = time.Minute
	warmUpPoll    = 20 * time.Millisecond
)

func (c *kindCluster) warmUp(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(c.config)
	if err != nil {
		return err
	}
	used := c.workers
	if len(used) == 0 {
		used = c.controlPlanes
	}
	used = slices.Concat(used, c.ownNodes)
	w := nodeset.WarmUp{Threshold: warmRejection, Timeout: warmUpTimeout, ReadyTimeout: warmUpTimeout, Poll: warmUpPoll, Logger: c.logger}
	if err := w.Nodes(ctx, client, used); err != nil {
		if ctx.Err() != nil {
			return err
		}
		c.logger.Info("kubelet warm-up incomplete: rejection timings may include a kubelet's first sync", "error", err.Error())
	}
	return nil
}
