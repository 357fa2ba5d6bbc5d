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

var schedulingGateValidation = spec.Spec{
	ShortName: "SchedulingGateValidation",
	Suite:     "initializers",
	Description: "Gate names are unique qualified names, and a pod cannot be created both bound (spec.nodeName) and " +
		"gated: each is rejected as invalid, naming the field; well-formed gates are accepted.",
	Profile:   spec.Core,
	Seed:      "002 Specification: Name is the identifier of the initializer, added to the object; Name should be fully qualified",
	Isolation: usesInitializers,
}

var _ = harness.Describe(schedulingGateValidation, func(f *harness.Framework) {
	ginkgo.It("rejects duplicate and malformed gate names and nodeName with gates, accepts well-formed gates", func(ctx ginkgo.SpecContext) {
		pods := f.Client.CoreV1().Pods(f.Namespace)
		one, two := gate(f, "one"), gate(f, "two")
		bound := newPod(f.Namespace, "bound", one)
		bound.Spec.NodeName = "admission-conformance-no-such-node"
		cases := []struct {
			what string
			pod  *corev1.Pod
			want string
		}{
			{"a gate listed twice", newPod(f.Namespace, "duplicate", one, two, one), `spec.schedulingGates[2]: Duplicate value: "` + one + `"`},
			{"a gate name with spaces", newPod(f.Namespace, "malformed", "not a name"), `spec.schedulingGates[0]: Invalid value: "not a name"`},
			{"a gate name with an invalid prefix", newPod(f.Namespace, "prefix", "Not_A_Domain/x"), `spec.schedulingGates[0]: Invalid value: "Not_A_Domain/x"`},
			{"nodeName and gates", bound, "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"},
		}
		for _, c := range cases {
			_, err := pods.Create(ctx, c.pod, metav1.CreateOptions{})
			gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "%s: want 422 Invalid, got %v", c.what, err)
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(c.want), c.what)
		}
		ok, err := pods.Create(ctx, newPod(f.Namespace, "wellformed", one, two), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "well-formed gates must be accepted")
		gomega.Expect(gateNames(ok)).To(gomega.Equal([]string{one, two}), "gates are stored in order")
	})
})
