package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// describe is harness.Describe plus one cleanup every case of this suite
// needs: its pods are deleted, and waited for, before the next case starts.
// The namespace's own deletion is asynchronous, and pods the kubelet still
// runs hold places on a node whose capacity is small on purpose; on a slow
// machine, or against a kubelet that wrongly admits pods, they pile up until
// the node rejects the next case's control pod with OutOfpods.
func describe(s spec.Spec, body func(f *harness.Framework)) bool {
	return harness.Describe(s, func(f *harness.Framework) {
		ginkgo.BeforeEach(func() {
			ginkgo.DeferCleanup(nodedecision.DeletePods, f)
		})
		body(f)
	})
}
