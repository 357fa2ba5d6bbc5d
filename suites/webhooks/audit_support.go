package webhooks

import (
	"context"

	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/audit"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// createAnnotations waits for the audit event of the create of the
// ConfigMap name in the spec's namespace and returns its annotations.
func createAnnotations(ctx context.Context, f *harness.Framework, name string) map[string]string {
	logs, ok := f.Env.Cluster.(cluster.AuditLog)
	gomega.ExpectWithOffset(1, ok).To(gomega.BeTrue(), "a cluster declaring AuditLog must expose its audit logs")
	var out map[string]string
	gomega.EventuallyWithOffset(1, ctx, func() (int, error) {
		events, err := audit.Events(logs.AuditLogPaths(), audit.ForObject("create", "configmaps", f.Namespace, name))
		if len(events) > 0 {
			out = events[0].Annotations
		}
		return len(events), err
	}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
		Should(gomega.Equal(1), "the create of %s must have one ResponseComplete audit event", name)
	return out
}
