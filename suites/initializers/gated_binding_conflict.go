package initializers

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var gatedPodBindingConflict = spec.Spec{
	ShortName: "GatedPodBindingConflict",
	Suite:     "initializers",
	Description: "Binding a pod that still has scheduling gates (POST pods/binding, what a scheduler does) fails with " +
		"409 Conflict naming the gates, and the pod stays unbound.",
	Profile:   spec.Core,
	Seed:      "002 Background: initializers hold a newly created resource until they are done (today: binding a gated pod is refused)",
	Isolation: usesInitializers,
}

var _ = harness.Describe(gatedPodBindingConflict, func(f *harness.Framework) {
	ginkgo.It("answers 409 to a binding of a gated pod", func(ctx ginkgo.SpecContext) {
		pods := f.Client.CoreV1().Pods(f.Namespace)
		p, err := pods.Create(ctx, newPod(f.Namespace, "gated", gate(f, "hold")), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		err = pods.Bind(ctx, &corev1.Binding{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name},
			Target:     corev1.ObjectReference{Kind: "Node", Name: "admission-conformance-no-such-node"},
		}, metav1.CreateOptions{})
		gomega.Expect(apierrors.IsConflict(err)).To(gomega.BeTrue(), "want 409 Conflict, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("has non-empty .spec.schedulingGates"))
		got, err := pods.Get(ctx, p.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.Spec.NodeName).To(gomega.BeEmpty(), "the refused binding bound the pod")
	})
})
