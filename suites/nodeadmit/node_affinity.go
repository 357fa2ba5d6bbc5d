package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsNodeAffinity = spec.Spec{
	ShortName:   "KubeletRejectsNodeAffinity",
	Suite:       "nodeadmit",
	Description: "A pod bound to a node whose labels its node selector does not match is rejected by the kubelet with Reason NodeAffinity.",
	Features:    builtInFeatures,
	Profile:     spec.Extended,
	Seed:        seedBuiltIn,
	Isolation:   bindsPodsToANode,
}

var _ = describe(rejectsNodeAffinity, func(f *harness.Framework) {
	ginkgo.It("fails the pod with Reason NodeAffinity and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		pod := subject(f, node, "subject")
		pod.Spec.NodeSelector = map[string]string{"admission-conformance.io/no-node-has-this": f.Namespace}
		expectNodeRejects(ctx, f, node, pod, rejection{reason: "NodeAffinity"})
	})
})
