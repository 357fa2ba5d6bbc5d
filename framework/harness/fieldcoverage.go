package harness

import (
	"github.com/onsi/ginkgo/v2"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// recordFields returns the case's client configurations (the cluster's,
// then each replica's), each recording the admission configuration objects
// the case writes, and arranges for the case's report to carry what it did
// with the admission API's fields: those writes, and what the fake
// webhooks received and answered while it ran (cases run one at a time in
// a process, so those calls are the case's own). The cleanup is registered
// first so it runs last, after the case's own cleanups changed or deleted
// what it made.
func recordFields(env *Env) (*rest.Config, []*rest.Config) {
	rec := env.fields.NewRecorder()
	wrap := func(c *rest.Config) *rest.Config {
		c = rest.CopyConfig(c)
		c.Wrap(rec.Wrap)
		c.Wrap(env.quiet.Wrap)
		return c
	}
	start := ginkgo.CurrentSpecReport().StartTime
	ginkgo.DeferCleanup(func() {
		if env.Webhooks != nil {
			for _, c := range env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return !c.ReceivedAt.Before(start) }) {
				rec.Received(c.RequestFields)
				rec.Answered(c.AnswerFields)
			}
		}
		if u := rec.Use(); !u.Empty() {
			ginkgo.AddReportEntry(results.FieldsEntry, u, ginkgo.ReportEntryVisibilityNever)
		}
	})
	replicas := env.Cluster.ReplicaConfigs()
	out := make([]*rest.Config, len(replicas))
	for i, r := range replicas {
		out[i] = wrap(r)
	}
	return wrap(env.Cluster.RESTConfig()), out
}
