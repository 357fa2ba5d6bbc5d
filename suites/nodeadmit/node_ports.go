package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsNodePorts = spec.Spec{
	ShortName:   "KubeletRejectsNodePorts",
	Suite:       "nodeadmit",
	Description: "A pod bound to a node whose host port another pod on the node already uses is rejected by the kubelet with Reason NodePorts.",
	Features:    builtInFeatures,
	Profile:     spec.Extended,
	Seed:        seedBuiltIn,
	Isolation:   bindsPodsToANode,
}

// hostPort is a port no other case uses.
const hostPort = 31847

var _ = describe(rejectsNodePorts, func(f *harness.Framework) {
	ginkgo.It("admits the first pod on a host port and fails the second with Reason NodePorts", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		withPort := func(p *corev1.Pod) *corev1.Pod {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080, HostPort: hostPort, Protocol: corev1.ProtocolTCP}}
			return p
		}
		// The control pod holds the port: its admission shows the node
		// works, and it is what the subject conflicts with.
		expectControlAdmitted(ctx, f, withPort(nodedecision.Pod(f, node, "control")))
		d, err := nodedecision.Decide(ctx, f, withPort(subject(f, node, "subject")))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		expectRejected(ctx, f, d, rejection{reason: "NodePorts"})
	})
})
