package initializers

import (
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

var schedulingGatesRemovedInAnyOrder = spec.Spec{
	ShortName: "SchedulingGatesRemovedInAnyOrder",
	Suite:     "initializers",
	Description: "Gates can be removed in any order (middle, last, first); the pod stays held until the last one is gone, " +
		"then the scheduler binds it within the binding bound.",
	Features: []features.Name{features.Scheduler, features.NodeAdmission},
	Profile:  spec.Extended,
	Seed: "002 Background: initializers hold a newly created resource until the last is removed (today: scheduling " +
		"gates may be removed in any order, where the seed's initializers go in list order)",
	Isolation: usesInitializersAndNodes,
}

var _ = harness.Describe(schedulingGatesRemovedInAnyOrder, func(f *harness.Framework) {
	ginkgo.It("removes the middle, last and first gate, and the pod is bound after the last removal", func(ctx ginkgo.SpecContext) {
		pods := f.Client.CoreV1().Pods(f.Namespace)
		first, middle, last := gate(f, "first"), gate(f, "middle"), gate(f, "last")
		p, err := pods.Create(ctx, newPod(f.Namespace, "gated", first, middle, last), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		steps := []struct {
			remove string
			left   []string
		}{{middle, []string{first, last}}, {last, []string{first}}, {first, []string{}}}
		var removed time.Time
		for _, s := range steps {
			cur, err := pods.Get(ctx, p.Name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(cur.Spec.NodeName).To(gomega.BeEmpty(), "bound while gates %v remain", gateNames(cur))
			patch, err := v1alpha1.RemoveGatePatch(v1alpha1.GateIndex(cur, s.remove), s.remove)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			removed = time.Now()
			p, err = pods.Patch(ctx, p.Name, types.JSONPatchType, patch, metav1.PatchOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "remove gate %s", s.remove)
			gomega.Expect(gateNames(p)).To(gomega.Equal(s.left), "gates after removing %s", s.remove)
		}

		bindingBound := f.Bounds.PodBinding.Duration
		_, seen, err := watchPod(ctx, f, p.Name, p.ResourceVersion, f.Bounds.ObjectState.Duration, func(p *corev1.Pod) bool { return bound(p) })
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the ungated pod must be bound")
		d := seen.Sub(removed)
		m := within(f, "pod-binding-after-last-gate", d, 0, bindingBound, nil)
		gomega.Expect(m.Within()).To(gomega.BeTrue(), "bound %s after its last gate was removed, bound %s", d, bindingBound)
	})
})
