package ordering

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var connectReachesAdmission = spec.Spec{
	ShortName: "ConnectReachesAdmission",
	Suite:     "ordering",
	Description: "A pods/exec request reaches admission as a CONNECT of the exec subresource carrying the PodExecOptions, " +
		"mutating admission first, before the apiserver tries to connect to the pod.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "000 REST flows, Connect, proposed behaviour: connecter.NewConnectOptions; decode request connect options; " +
		"admit.Validate; connecter.Connect().ServeHTTP(); 001 Handles(CONNECT)",
	Manifests: []string{"ordering/pod.yaml"},
}

// Seed steps checked: the proposed connect flow (decode the connect options;
// admit.Validate; connecter.Connect). kube-apiserver 1.36
// (handlers.ConnectResource) runs mutating, then validating admission on the
// decoded options, then connects; the case asserts that. Admission precedes
// the connection attempt, so a pod with no node is enough (the fixture's
// scheduling gate keeps it unbound on any cluster): the exec is admitted,
// then fails with 400 "does not have a host assigned". CONNECT hooks match pods/exec with an empty objectSelector:
// the options object has no labels, and a non-empty selector never matches.
var _ = harness.Describe(connectReachesAdmission, func(f *harness.Framework) {
	ginkgo.It("calls admission with CONNECT before connecting", func(ctx ginkgo.SpecContext) {
		var pod corev1.Pod
		gomega.Expect(fixture(f, "ordering/pod.yaml", &pod, "")).To(gomega.Succeed())
		_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, &pod, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		connects := rule("", ops(opConnect), "pods/exec")
		v, err := f.RegisterValidating(ctx, "validate", harness.Hook{Name: "after", Rules: connects, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		m, err := f.RegisterMutating(ctx, "mutate", harness.Hook{Name: "before", Rules: connects, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		// The pod has no node (it is gated), so once admitted the exec
		// cannot connect anywhere: kube-apiserver answers 400 "does not have a host
		// assigned" after admission, which is what this case relies on.
		err = f.Client.CoreV1().RESTClient().Post().Namespace(f.Namespace).Resource("pods").Name(pod.Name).SubResource("exec").
			Param("container", "main").Param("command", "true").Param("stdout", "true").Do(ctx).Error()
		gomega.Expect(err).To(gomega.HaveOccurred(), "an exec into a pod without a node cannot succeed")
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("does not have a host assigned"),
			"the exec must fail at connecting, after admission, not in admission")

		mutatingPath, validatingPath := m.Hooks["before"].Path, v.Hooks["after"].Path
		all, err := settledCalls(ctx, f, func(c fakewebhook.Call) bool {
			return (c.Path == mutatingPath || c.Path == validatingPath) && c.Name == pod.Name
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		mc, vc := all.onPath(mutatingPath), all.onPath(validatingPath)
		gomega.Expect(mc).To(gomega.HaveLen(1), "mutating admission must be called once for the exec")
		gomega.Expect(vc).To(gomega.HaveLen(1), "validating admission must be called once for the exec")
		for _, c := range []fakewebhook.Call{mc[0], vc[0]} {
			gomega.Expect(c.Operation).To(gomega.Equal("CONNECT"), "%s admission: operation", c.Phase)
			gomega.Expect(c.SubResource).To(gomega.Equal("exec"), "%s admission: subresource", c.Phase)
			var opts corev1.PodExecOptions
			gomega.Expect(c.DecodeObject(&opts)).To(gomega.Succeed(), "%s admission: the object is the connect options", c.Phase)
			gomega.Expect(opts.Kind).To(gomega.Equal("PodExecOptions"))
			gomega.Expect(opts.Command).To(gomega.Equal([]string{"true"}), "%s admission: the decoded connect options", c.Phase)
		}
		gomega.Expect(mc[0].RespondedAt.Before(vc[0].ReceivedAt)).To(gomega.BeTrue(), "mutating admission must finish before validating admission starts")
	})
})
