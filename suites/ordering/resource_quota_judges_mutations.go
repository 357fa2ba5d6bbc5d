package ordering

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var resourceQuotaJudgesMutations = spec.Spec{
	ShortName: "ResourceQuotaJudgesWebhookMutations",
	Suite:     "ordering",
	Description: "The ResourceQuota admission plugin admits or rejects a claim on the storage request a mutating webhook " +
		"wrote, not the one submitted, and charges the written value.",
	Features: []features.Name{features.MutatingWebhook},
	Profile:  spec.Core,
	Seed: "000 Requirements for extensible admission: compiled validating admission plugins must run after mutating " +
		"admission webhooks (a mutating plugin can invalidate ResourceQuota's results)",
	Manifests: []string{"ordering/resourcequota.yaml", "ordering/pvc.yaml"},
}

var _ = harness.Describe(resourceQuotaJudgesMutations, func(f *harness.Framework) {
	// createQuota creates the quota (1Gi of requests.storage) and returns
	// once it is in force on every apiserver replica: a dry-run probe claim,
	// labelled as a marker so no webhook sees it, is admitted by every
	// replica once the quota is in force (see createQuotaInForce).
	createQuota := func(ctx ginkgo.SpecContext) *corev1.ResourceQuota {
		var quota corev1.ResourceQuota
		gomega.Expect(fixture(f, "ordering/resourcequota.yaml", &quota, "")).To(gomega.Succeed())
		err := createQuotaInForce(ctx, f, quota.DeepCopy(), func(ctx context.Context, client kubernetes.Interface) (bool, error) {
			var probe corev1.PersistentVolumeClaim
			if err := fixture(f, "ordering/pvc.yaml", &probe, ""); err != nil {
				return false, err
			}
			probe.Name, probe.GenerateName = "", "quota-probe-"
			probe.Labels = map[string]string{harness.MarkerLabel: f.Namespace + "-quota-probe"}
			_, err := client.CoreV1().PersistentVolumeClaims(f.Namespace).Create(ctx, &probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err == nil, err
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the quota must be in force on every apiserver")
		gomega.Eventually(ctx, func(ctx ginkgo.SpecContext) (corev1.ResourceList, error) {
			q, err := f.Client.CoreV1().ResourceQuotas(f.Namespace).Get(ctx, quota.Name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return q.Status.Used, nil
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
			Should(gomega.HaveKey(corev1.ResourceRequestsStorage), "the quota controller must fill in the quota's status")
		return &quota
	}
	// rewriteStorage registers a mutating webhook that sets every claim's
	// storage request to value.
	rewriteStorage := func(ctx ginkgo.SpecContext, value string) harness.RegisteredHook {
		m, err := f.RegisterMutating(ctx, "mutate", harness.Hook{Name: "storage",
			Rules:     rule("", ops(opCreate), "persistentvolumeclaims"),
			Behaviour: patch(fakewebhook.PatchOperation{Op: "replace", Path: "/spec/resources/requests/storage", Value: value}),
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return m.Hooks["storage"]
	}
	claim := func(storage string) *corev1.PersistentVolumeClaim {
		var pvc corev1.PersistentVolumeClaim
		gomega.Expect(fixture(f, "ordering/pvc.yaml", &pvc, newNonce())).To(gomega.Succeed())
		pvc.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(storage)
		return &pvc
	}
	used := func(ctx ginkgo.SpecContext, quota *corev1.ResourceQuota) resource.Quantity {
		q, err := f.Client.CoreV1().ResourceQuotas(f.Namespace).Get(ctx, quota.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return q.Status.Used[corev1.ResourceRequestsStorage]
	}

	ginkgo.It("rejects a claim the webhook raised above the quota", func(ctx ginkgo.SpecContext) {
		quota := createQuota(ctx)
		hook := rewriteStorage(ctx, "2Gi")
		pvc := claim("100Mi")
		_, err := f.Client.CoreV1().PersistentVolumeClaims(f.Namespace).Create(ctx, pvc, metav1.CreateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(),
			"100Mi was submitted but the mutating webhook wrote 2Gi, above the 1Gi quota: the ResourceQuota must judge the written value and reject it")
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "a quota rejection is 403 Forbidden, got %v", err)
		gomega.Expect(err.Error()).To(gomega.And(gomega.ContainSubstring("exceeded quota"), gomega.ContainSubstring("requests.storage=2Gi")),
			"the rejection must be the quota's, about the 2Gi the webhook wrote")

		calls, err := requestCalls(ctx, f, pvc.Annotations[requestAnnotation], hook.Path)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(calls).To(gomega.HaveLen(1), "the mutating webhook must have been called for the claim")
		charged := used(ctx, quota)
		gomega.Expect(charged.IsZero()).To(gomega.BeTrue(), "a rejected claim must not be charged to the quota; charged %s", charged.String())
	})

	ginkgo.It("admits a claim the webhook lowered below the quota, and charges the lowered value", func(ctx ginkgo.SpecContext) {
		quota := createQuota(ctx)
		rewriteStorage(ctx, "100Mi")
		pvc := claim("2Gi")
		stored, err := f.Client.CoreV1().PersistentVolumeClaims(f.Namespace).Create(ctx, pvc, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(),
			"2Gi was submitted but the mutating webhook wrote 100Mi, within the 1Gi quota: the ResourceQuota must judge the written value and admit it")
		want := resource.MustParse("100Mi")
		gomega.Expect(stored.Spec.Resources.Requests.Storage().Cmp(want)).To(gomega.BeZero(), "the stored claim must carry the webhook's value")
		charged := used(ctx, quota)
		gomega.Expect(charged.Cmp(want)).To(gomega.BeZero(), "the quota must charge the 100Mi the webhook wrote, not the 2Gi submitted; charged %s", charged.String())
	})
})
