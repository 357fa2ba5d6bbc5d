package review

import (
	"encoding/json"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookPatchDefaulted = spec.Spec{
	ShortName: "WebhookPatchDefaulted",
	Suite:     "webhooks",
	Description: "What a mutating webhook's patch adds is defaulted like what the client sent: a container the patch " +
		"adds without terminationMessagePath, terminationMessagePolicy and imagePullPolicy gets their defaults, " +
		"before the validating webhooks see the object and in what is stored.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "000 Proposed create flow: admit.ApplyMutations on the decoded request object, then the strategy " +
		"(PrepareForCreate, Validate) and admit.Validate see the mutated object",
}

var _ = harness.Describe(webhookPatchDefaulted, func(f *harness.Framework) {
	ginkgo.It("a container the patch adds is defaulted before validation and storage", func(ctx ginkgo.SpecContext) {
		pod := speckit.PendingPod(f.Namespace, "patched")
		rules := speckit.ResourceRule([]string{""}, "pods")
		added := map[string]any{"name": "added", "image": "registry.invalid/admission-conformance/added:1"}
		_, err := speckit.Register(ctx, f, fakewebhook.Mutating, harness.Hook{Name: "adds-container", Rules: rules, ObjectSelector: speckit.Selecting(pod),
			FailurePolicy: admissionregistrationv1.Fail, Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch,
				Patch: []fakewebhook.PatchOperation{{Op: "add", Path: "/spec/containers/-", Value: added}}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		validating, err := speckit.Register(ctx, f, fakewebhook.Validating, harness.Hook{Name: "sees-container", Rules: rules, ObjectSelector: speckit.Selecting(pod),
			FailurePolicy: admissionregistrationv1.Fail, Behaviour: speckit.Allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		created, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the patched pod must be defaulted and pass validation")
		gomega.Expect(created.Spec.Containers).To(gomega.HaveLen(2))
		speckit.ExpectDefaultedContainer(created.Spec.Containers[1], "in the stored object")

		calls := speckit.CallsTo(f, validating.Hooks["sees-container"], f.Namespace, pod.Name)
		gomega.Expect(calls).To(gomega.HaveLen(1))
		var seen corev1.Pod
		gomega.Expect(json.Unmarshal(calls[0].Object, &seen)).To(gomega.Succeed())
		gomega.Expect(seen.Spec.Containers).To(gomega.HaveLen(2), "the validating webhook sees the mutated pod")
		speckit.ExpectDefaultedContainer(seen.Spec.Containers[1], "in the object the validating webhook received")
	})
})
