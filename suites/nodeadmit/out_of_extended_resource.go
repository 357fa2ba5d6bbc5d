package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsOutOfExtendedResource = spec.Spec{
	ShortName: "KubeletRejectsOutOfExtendedResource",
	Suite:     "nodeadmit",
	Description: "A pod bound to a node that asks for more of an extended resource than the node advertises is rejected by the " +
		"kubelet with Reason OutOf<resource name>, while a pod asking for an extended resource the node does not advertise at all is admitted.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: bindsPodsToANode,
}

var _ = describe(rejectsOutOfExtendedResource, func(f *harness.Framework) {
	ginkgo.It("fails the pod with Reason OutOf<resource> and leaves it in place", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		name, have, ok := nodedecision.ExtendedResource(n)
		if !ok {
			ginkgo.Skip(notSupported("node " + node + " advertises no extended resource"))
		}
		pod := subject(f, node, "subject")
		want := have.DeepCopy()
		want.Add(resource.MustParse("1"))
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{name: want}
		pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{name: want}
		// The control asks for an extended resource the node does not
		// advertise at all: the kubelet leaves those to whatever placed the
		// pod (a scheduler extender, say) and admits it.
		control := nodedecision.Pod(f, node, "control")
		absent := corev1.ResourceList{"admission-conformance.io/absent": resource.MustParse("1")}
		control.Spec.Containers[0].Resources.Requests = absent
		control.Spec.Containers[0].Resources.Limits = absent
		expectNodeRejectsAfter(ctx, f, control, pod, rejection{reason: "OutOf" + string(name)})
	})
})
