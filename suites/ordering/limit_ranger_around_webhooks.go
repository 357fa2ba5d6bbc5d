package ordering

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// limitRangerAnnotation is the annotation LimitRanger sets on a pod it gave
// defaults (kubernetes.io well-known labels, annotations and taints).
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

var limitRangerAroundWebhooks = spec.Spec{
	ShortName: "LimitRangerAroundWebhooks",
	Suite:     "ordering",
	Description: "LimitRanger's defaults (its mutating phase, ahead of the webhooks) are in the object mutating and validating webhooks receive, " +
		"with the kubernetes.io/limit-ranger annotation listing them (one or several), and its " +
		"maximum (its validating phase) is enforced on the limit a mutating webhook wrote.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "000 Requirements for extensible admission: object mutations must happen before object validations; " +
		"compiled validating admission plugins must run after mutating admission webhooks",
	Manifests: []string{"ordering/limitrange.yaml", "ordering/pod.yaml"},
}

var _ = harness.Describe(limitRangerAroundWebhooks, func(f *harness.Framework) {
	pods := rule("", ops(opCreate), "pods")
	// setUp creates the LimitRange and what pods need in the namespace. No
	// wait is needed, and none is made, so that a chain without LimitRanger
	// fails on the assertions rather than here: LimitRanger reads ranges
	// from an informer, but when that has none for the namespace it lists
	// them live (and caches the answer for 30 s), and no pod reaches it in
	// this namespace before the range exists.
	setUp := func(ctx ginkgo.SpecContext) *corev1.LimitRange {
		var lr corev1.LimitRange
		gomega.Expect(fixture(f, "ordering/limitrange.yaml", &lr, "")).To(gomega.Succeed())
		_, err := f.Client.CoreV1().LimitRanges(f.Namespace).Create(ctx, &lr, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return &lr
	}

	// expectDefaultsSeenBy registers a webhook of phase that observes pods,
	// creates a pod without resources and checks the webhook saw
	// LimitRanger's defaults in it.
	expectDefaultsSeenBy := func(ctx ginkgo.SpecContext, phase fakewebhook.Phase, lr *corev1.LimitRange) {
		register := f.RegisterValidating
		if phase == fakewebhook.Mutating {
			register = f.RegisterMutating
		}
		v, err := register(ctx, string(phase), harness.Hook{Name: "observe", Rules: pods, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		nonce := newNonce()
		var pod corev1.Pod
		gomega.Expect(fixture(f, "ordering/pod.yaml", &pod, nonce)).To(gomega.Succeed())
		_, err = f.Client.CoreV1().Pods(f.Namespace).Create(ctx, &pod, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		calls, err := requestCalls(ctx, f, nonce, v.Hooks["observe"].Path)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(calls).To(gomega.HaveLen(1), "the %s webhook must be called once", phase)
		var seen corev1.Pod
		gomega.Expect(calls[0].DecodeObject(&seen)).To(gomega.Succeed())
		limits := lr.Spec.Limits[0]
		resources := seen.Spec.Containers[0].Resources
		gomega.Expect(resources.Requests.Cpu().Cmp(limits.DefaultRequest[corev1.ResourceCPU])).To(gomega.BeZero(),
			"the %s webhook must see LimitRanger's default cpu request %s, saw requests %v", phase,
			limits.DefaultRequest.Cpu().String(), resources.Requests)
		gomega.Expect(resources.Limits.Cpu().Cmp(limits.Default[corev1.ResourceCPU])).To(gomega.BeZero(),
			"the %s webhook must see LimitRanger's default cpu limit %s, saw limits %v", phase,
			limits.Default.Cpu().String(), resources.Limits)
		gomega.Expect(seen.Annotations).To(gomega.HaveKeyWithValue(limitRangerAnnotation,
			"LimitRanger plugin set: cpu request for container main; cpu limit for container main"),
			"the %s webhook must see the annotation LimitRanger sets on the pod it defaulted", phase)
	}

	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("applies its defaults before %s webhooks see the pod", phase), func(ctx ginkgo.SpecContext) {
			expectDefaultsSeenBy(ctx, phase, setUp(ctx))
		})
	}

	ginkgo.It("annotates a pod it gave one default alone (the limit of a container with its own request)", func(ctx ginkgo.SpecContext) {
		// kubernetes.io/limit-ranger (well-known annotations) lists what
		// LimitRanger set, whether it set one value or several.
		lr := setUp(ctx)
		var pod corev1.Pod
		gomega.Expect(fixture(f, "ordering/pod.yaml", &pod, newNonce())).To(gomega.Succeed())
		pod.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: lr.Spec.Limits[0].DefaultRequest[corev1.ResourceCPU]}
		got, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, &pod, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		limit := lr.Spec.Limits[0].Default[corev1.ResourceCPU]
		gomega.Expect(got.Spec.Containers[0].Resources.Limits.Cpu().Cmp(limit)).To(gomega.BeZero(),
			"LimitRanger must give the container its default cpu limit %s, got limits %v", limit.String(), got.Spec.Containers[0].Resources.Limits)
		gomega.Expect(got.Annotations).To(gomega.HaveKeyWithValue(limitRangerAnnotation, "LimitRanger plugin set: cpu limit for container main"),
			"LimitRanger must annotate the pod with the one default it set")
	})

	ginkgo.It("enforces its maximum on the limit a mutating webhook wrote", func(ctx ginkgo.SpecContext) {
		lr := setUp(ctx)
		max := lr.Spec.Limits[0].Max[corev1.ResourceCPU]
		above := max.DeepCopy()
		above.Add(resource.MustParse("500m"))
		// The webhook writes the container's whole resources, so that its
		// patch applies whether or not LimitRanger's defaults are there.
		request := lr.Spec.Limits[0].DefaultRequest[corev1.ResourceCPU]
		m, err := f.RegisterMutating(ctx, "mutate", harness.Hook{Name: "raise", Rules: pods,
			Behaviour: patch(fakewebhook.PatchOperation{Op: "add", Path: "/spec/containers/0/resources", Value: map[string]any{
				"limits":   map[string]string{"cpu": above.String()},
				"requests": map[string]string{"cpu": request.String()},
			}})})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		nonce := newNonce()
		var pod corev1.Pod
		gomega.Expect(fixture(f, "ordering/pod.yaml", &pod, nonce)).To(gomega.Succeed())
		_, err = f.Client.CoreV1().Pods(f.Namespace).Create(ctx, &pod, metav1.CreateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(), "the mutating webhook raised the cpu limit to %s, above the LimitRange's maximum %s: "+
			"LimitRanger's validation must judge the written value and reject the pod", above.String(), max.String())
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "LimitRanger rejects with 403 Forbidden, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("maximum cpu usage per Container is "+max.String()),
			"the rejection must be LimitRanger's maximum")

		calls, err := requestCalls(ctx, f, nonce, m.Hooks["raise"].Path)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(calls).To(gomega.HaveLen(1), "the mutating webhook must have been called for the pod")
	})
})
