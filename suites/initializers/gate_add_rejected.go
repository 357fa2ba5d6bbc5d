package initializers

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var schedulingGateAddRejected = spec.Spec{
	ShortName: "SchedulingGateAddRejected",
	Suite:     "initializers",
	Description: "Scheduling gates can only be set at creation: adding one to a pod later, or renaming one, is rejected " +
		"with upstream's message, and the stored gates do not change.",
	Profile:   spec.Core,
	Seed:      "002 Background: initializers are set for resources newly created (today: scheduling gates can only be set at creation)",
	Isolation: usesInitializers,
}

var _ = harness.Describe(schedulingGateAddRejected, func(f *harness.Framework) {
	ginkgo.It("rejects adding or renaming a gate after creation", func(ctx ginkgo.SpecContext) {
		pods := f.Client.CoreV1().Pods(f.Namespace)
		held, err := pods.Create(ctx, newPod(f.Namespace, "held", gate(f, "first")), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// Never schedulable, so no scheduler binds it while the spec runs.
		free := newPod(f.Namespace, "free")
		free.Spec.NodeSelector = map[string]string{"admission-conformance.io/no-such-node": "true"}
		free, err = pods.Create(ctx, free, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		later := gate(f, "later")
		cases := []struct {
			what, pod, patch string
		}{
			{"append a gate", held.Name, fmt.Sprintf(`[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":%q}}]`, later)},
			{"rename the gate", held.Name, fmt.Sprintf(`[{"op":"replace","path":"/spec/schedulingGates/0/name","value":%q}]`, later)},
			{"gate a pod created without gates", free.Name, fmt.Sprintf(`[{"op":"add","path":"/spec/schedulingGates","value":[{"name":%q}]}]`, later)},
		}
		for _, c := range cases {
			_, err := pods.Patch(ctx, c.pod, types.JSONPatchType, []byte(c.patch), metav1.PatchOptions{})
			gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "%s: want 422 Invalid, got %v", c.what, err)
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", later)), c.what)
		}
		for name, want := range map[string][]string{held.Name: {gate(f, "first")}, free.Name: {}} {
			p, err := pods.Get(ctx, name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(gateNames(p)).To(gomega.Equal(want), "stored gates of %s", name)
		}
	})
})
