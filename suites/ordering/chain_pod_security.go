package ordering

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var podSecurityJudgesMutatedPod = spec.Spec{
	ShortName: "PodSecurityJudgesMutatedPod",
	Suite:     "ordering",
	Description: "The compiled PodSecurity plugin validates the pod as mutating webhooks left it: a restricted-compliant " +
		"pod a webhook puts on the host network is refused, a non-compliant pod a webhook makes compliant is admitted.",
	Features: []features.Name{features.MutatingWebhook},
	Profile:  spec.Core,
	Seed:     "000 Requirements: compiled validating admission plugins must run after mutating admission webhooks",
}

var _ = harness.Describe(podSecurityJudgesMutatedPod, func(f *harness.Framework) {
	const enforce = "pod-security.kubernetes.io/enforce"
	// gatedPod never reaches a node; restricted says whether it complies
	// with the restricted Pod Security Standard.
	gatedPod := func(restricted bool) *corev1.Pod {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pss-" + rand.String(5)}, Spec: corev1.PodSpec{
			SchedulingGates: []corev1.PodSchedulingGate{{Name: "admission-conformance.io/never-scheduled"}},
			Containers:      []corev1.Container{{Name: "c", Image: "registry.invalid/admission-conformance/never-pulled"}}}}
		if restricted {
			pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
			pod.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
		}
		return pod
	}
	// restrict labels the spec's namespace enforce=restricted and waits
	// until PodSecurity, which reads namespaces from its cache, enforces it.
	restrict := func(ctx ginkgo.SpecContext) {
		ns, err := f.Client.CoreV1().Namespaces().Get(ctx, f.Namespace, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ns.Labels[enforce] = "restricted"
		_, err = f.Client.CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Eventually(ctx, func() error {
			_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, gatedPod(false), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
			Should(gomega.MatchError(gomega.ContainSubstring("violates PodSecurity")), "PodSecurity must come to enforce the namespace's label")
	}
	pods := rule("", ops(opCreate), "pods")

	ginkgo.It("a compliant pod put on the host network by a webhook is refused", func(ctx ginkgo.SpecContext) {
		restrict(ctx)
		m, err := f.RegisterMutating(ctx, "escalate", harness.Hook{Name: "host-network", Rules: pods, Behaviour: patch(
			fakewebhook.PatchOperation{Op: "add", Path: "/spec/hostNetwork", Value: true})})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		pod := gatedPod(true)
		_, err = f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "PodSecurity must refuse the mutated pod (403), got %v", err)
		gomega.Expect(err.Error()).To(gomega.And(gomega.ContainSubstring(`violates PodSecurity "restricted`), gomega.ContainSubstring("hostNetwork")))
		gomega.Expect(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return c.Path == m.Hooks["host-network"].Path && c.Name == pod.Name })).
			To(gomega.HaveLen(1), "the webhook must have mutated the pod before PodSecurity judged it")
	})

	ginkgo.It("a non-compliant pod made compliant by a webhook is admitted", func(ctx ginkgo.SpecContext) {
		restrict(ctx)
		_, err := f.RegisterMutating(ctx, "harden", harness.Hook{Name: "restricted", Rules: pods, Behaviour: patch(
			fakewebhook.PatchOperation{Op: "add", Path: "/spec/securityContext", Value: map[string]any{
				"runAsNonRoot": true, "seccompProfile": map[string]any{"type": "RuntimeDefault"}}},
			fakewebhook.PatchOperation{Op: "add", Path: "/spec/containers/0/securityContext", Value: map[string]any{
				"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []string{"ALL"}}}})})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		created, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, gatedPod(false), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "PodSecurity must judge the pod as the webhook left it, which complies")
		gomega.Expect(created.Spec.SecurityContext.RunAsNonRoot).To(gomega.Equal(ptr.To(true)), "the stored pod carries the mutation")
	})
})
