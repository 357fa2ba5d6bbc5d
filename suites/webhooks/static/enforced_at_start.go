package static

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var staticEnforcedAtStart = spec.Spec{
	ShortName: "StaticEnforcedAtStart",
	Suite:     "webhooks",
	Description: "A static validating webhook and a static ValidatingAdmissionPolicy present when an apiserver starts are " +
		"enforced on the first requests it serves after becoming ready, with no informer to wait for.",
	Features: []features.Name{features.StaticAdmissionManifests},
	Profile:  spec.Extended,
	Seed:     staticSeed,
}

// The provider wrote the boot hooks before starting each replica and made
// the first requests itself, before anything else could reach the replica;
// this spec asserts what those requests met.
var _ = harness.Describe(staticEnforcedAtStart, func(f *harness.Framework) {
	probes := func() []cluster.StaticBootProbe {
		s, ok := f.Env.Cluster.(cluster.StaticManifests)
		gomega.ExpectWithOffset(1, ok).To(gomega.BeTrue(), "the cluster declares StaticAdmissionManifests but has no boot probes")
		p := s.StaticBootProbes()
		gomega.ExpectWithOffset(1, p).To(gomega.HaveLen(len(f.Replicas)), "one boot probe per apiserver replica")
		return p
	}
	ginkgo.It("the static ValidatingAdmissionPolicy denies the first request on every replica", func() {
		for i, p := range probes() {
			gomega.Expect(p.Policy).To(gomega.ContainSubstring(cluster.BootPolicyMessage),
				fmt.Sprintf("replica %d: the first request must be denied by the static policy %s", i, cluster.BootPolicyName))
			gomega.Expect(p.PolicyCode).To(gomega.Equal(int32(422)), "replica %d: a policy denial is 422 Invalid", i)
		}
	})
	ginkgo.It("the static validating webhook is called for the first request on every replica", func() {
		for i, p := range probes() {
			// Nothing listens at the webhook's address: under failurePolicy
			// Fail the failed call refuses the request naming the webhook.
			gomega.Expect(p.Webhook).To(gomega.ContainSubstring(fmt.Sprintf("failed calling webhook %q", cluster.BootWebhookName)),
				"replica %d: the first request must reach the static webhook", i)
			gomega.Expect(p.WebhookCode).To(gomega.Equal(int32(500)), "replica %d: a failed call under Fail is 500 InternalError", i)
		}
	})
})
