package initializers

import (
	"context"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakeinitializer"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

var initializerOrderAcrossConfigurations = spec.Spec{
	ShortName: "InitializerOrderAcrossConfigurations",
	Suite:     "initializers",
	Description: "Initializers of several configurations are assigned sorted by configuration name with each " +
		"configuration's order kept, whatever the order the configurations were created in, and each initializer gets " +
		"its turn only after the one before it finished.",
	Features: []features.Name{features.ReferenceInitializers},
	Profile:  spec.Reference,
	Seed: "002 Specification: when merging multiple InitializerConfigurations, initializers are sorted by the name of " +
		"the InitializerConfigurations; the order of the initializers from the same InitializerConfiguration is preserved",
	Isolation: usesInitializers,
}

var _ = harness.Describe(initializerOrderAcrossConfigurations, func(f *harness.Framework) {
	ginkgo.It("assigns b's after a's, keeps a's order, and runs them one at a time in that order", func(ctx ginkgo.SpecContext) {
		a1, a2, b1 := gate(f, "a1"), gate(f, "a2"), gate(f, "b1")
		// b is created first: creation order must not matter.
		_, err := createConfiguration(ctx, f, newConfiguration(f, "b", initializer(b1, v1alpha1.Ignore, 30)), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = createConfiguration(ctx, f, newConfiguration(f, "a", initializer(a2, v1alpha1.Ignore, 30), initializer(a1, v1alpha1.Ignore, 30)), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = updateConfiguration(ctx, f, configurationName(f, "a"), func(c *v1alpha1.InitializerConfiguration) {
			// Listed order within one configuration is what counts: a1 then a2.
			c.Initializers = []v1alpha1.Initializer{initializer(a1, v1alpha1.Ignore, 30), initializer(a2, v1alpha1.Ignore, 30)}
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		reordered := time.Now()
		want := []string{a1, a2, b1}
		gomega.Expect(waitAssigned(ctx, f, want)).To(gomega.Succeed())
		// The set is the same before the reorder takes effect (a pod
		// created then got a2 before a1 once in a parallel run): the
		// reorder is in force for pods created a propagation bound after it.
		gomega.Expect(awaitOrder(ctx, f, want, reordered.Add(f.Bounds.InitializerConfigPropagation.Duration+f.Bounds.TimingSlack.Duration))).To(gomega.Succeed())

		fakes := map[string]*fakeinitializer.Controller{}
		for _, name := range want {
			fakes[name], err = startFake(ctx, f, name, fakeinitializer.Behaviour{Delay: 50 * time.Millisecond})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "subject"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(gateNames(p)).To(gomega.Equal(want), "gates of the created pod")
		gomega.Expect(assignedNames(p)).To(gomega.Equal(want), "initializers recorded on the created pod")

		var removals []fakeinitializer.Removal
		for _, name := range want {
			waitCtx, cancel := context.WithTimeout(ctx, f.Bounds.ObjectState.Duration)
			r, err := fakes[name].WaitRemoval(waitCtx, p.Name)
			cancel()
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(r.Err).NotTo(gomega.HaveOccurred(), "%s removing its gate", name)
			removals = append(removals, r)
		}
		for i := 1; i < len(want); i++ {
			gomega.Expect(removals[i].Seen).To(gomega.BeTemporally(">=", removals[i-1].Sent),
				"%s saw itself at the head before %s removed its gate", want[i], want[i-1])
		}
		_, _, err = watchPod(ctx, f, p.Name, p.ResourceVersion, f.Bounds.ObjectState.Duration, func(p *corev1.Pod) bool {
			return initialized(p) && len(p.Spec.SchedulingGates) == 0
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the pod is initialized once its last initializer finished")
	})
})
