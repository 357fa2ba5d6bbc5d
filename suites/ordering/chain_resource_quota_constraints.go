package ordering

import (
	"context"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var resourceQuotaConstraints = spec.Spec{
	ShortName: "ResourceQuotaConstraints",
	Suite:     "ordering",
	Description: "The ResourceQuota plugin refuses (403) a pod without the limit a quota tracks, naming the resource and " +
		"the container; a quota scoped to BestEffort pods (by scopes or by scopeSelector) refuses only pods in its scope; " +
		"a pods/resize is charged by what it adds and refused when that exceeds the quota; what no quota tracks is admitted " +
		"uncharged, and an update moving a pod into a quota's scope is charged to that quota only.",
	Profile: spec.Core,
	Seed: "003 compiled admission plugins (ResourceQuota); kubernetes.io Resource Quotas (\"users must specify requests " +
		"or limits for those values; otherwise, the quota system may reject pod creation\"; quota scopes and " +
		"scopeSelector); k8s.io/api core/v1 ResourceQuotaSpec",
}

var _ = harness.Describe(resourceQuotaConstraints, func(f *harness.Framework) {
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	pod := func(name string, resources corev1.ResourceRequirements) *corev1.Pod {
		var p corev1.Pod
		gomega.Expect(fixture(f, "ordering/pod.yaml", &p, "")).To(gomega.Succeed())
		p.Name = name
		p.Spec.Containers[0].Resources = resources
		return &p
	}
	requests := func(cpu string) corev1.ResourceRequirements {
		return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}
	}
	// inForce creates quota and returns once every apiserver replica
	// refuses refused, a dry-run pod the quota in force refuses ("exceeded
	// quota" or "failed quota" naming it); a replica that admits it has not
	// listed the quota yet.
	inForce := func(ctx ginkgo.SpecContext, quota *corev1.ResourceQuota, refused *corev1.Pod) {
		err := createQuotaInForce(ctx, f, quota, func(ctx context.Context, client kubernetes.Interface) (bool, error) {
			_, err := client.CoreV1().Pods(f.Namespace).Create(ctx, refused.DeepCopy(), dryRun)
			switch {
			case err == nil:
				return false, nil
			case apierrors.IsForbidden(err) && (strings.Contains(err.Error(), "exceeded quota: "+quota.Name) ||
				strings.Contains(err.Error(), "failed quota: "+quota.Name)):
				return true, nil
			}
			return false, err
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the quota %s must be in force on every apiserver", quota.Name)
	}

	resourceQuotaCharges(f)

	ginkgo.It("refuses a pod without the limit a quota tracks, naming the resource and the container", func(ctx ginkgo.SpecContext) {
		noLimits := pod("no-limits", requests("100m"))
		inForce(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "cpu-limits"},
			Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceLimitsCPU: resource.MustParse("2")}}}, noLimits)
		_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, noLimits, dryRun)
		expectForbidden(err, "a pod without a cpu limit",
			`pods "no-limits" is forbidden: failed quota: cpu-limits: must specify limits.cpu for: main`)
		limited := pod("limited", corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}})
		_, err = f.Client.CoreV1().Pods(f.Namespace).Create(ctx, limited, dryRun)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a pod with a cpu limit within the quota must be admitted")
	})

	for _, tc := range []struct {
		by   string
		spec corev1.ResourceQuotaSpec
	}{
		{"scopes", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")},
			Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}},
		{"scopeSelector", corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")},
			ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
				ScopeName: corev1.ResourceQuotaScopeBestEffort, Operator: corev1.ScopeSelectorOpExists}}}}},
	} {
		ginkgo.It("a quota scoped to BestEffort pods by "+tc.by+" refuses a BestEffort pod and admits a Burstable one", func(ctx ginkgo.SpecContext) {
			bestEffort := pod("best-effort", corev1.ResourceRequirements{})
			inForce(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "best-effort"}, Spec: tc.spec}, bestEffort)
			_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, bestEffort, dryRun)
			expectForbidden(err, "a BestEffort pod",
				`pods "best-effort" is forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=0, limited: pods=0`)
			_, err = f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod("burstable", requests("100m")), dryRun)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a Burstable pod is outside the quota's scope and must be admitted")
		})
	}

	ginkgo.It("charges a pods/resize by what it adds, and refuses one that exceeds the quota", func(ctx ginkgo.SpecContext) {
		tooBig := pod("too-big", requests("1500m"))
		inForce(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "cpu-requests"},
			Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1")}}}, tooBig)
		created, createErr := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod("resizable", requests("500m")), metav1.CreateOptions{})
		gomega.Expect(createErr).NotTo(gomega.HaveOccurred(), "a pod requesting 500m of the quota's 1 cpu must be admitted")
		resize := func(cpu string) error {
			r := created.DeepCopy()
			r.Spec.Containers[0].Resources = requests(cpu)
			_, err := f.Client.CoreV1().Pods(f.Namespace).UpdateResize(ctx, r.Name, r, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}
		// The plugin charged the create in the quota's status; a replica
		// judges the resize by the usage it has seen, so the refusal is
		// waited for (a resize admitted meanwhile is a dry run).
		var err error
		gomega.Eventually(ctx, func(ctx context.Context) bool {
			err = resize("1500m")
			return err != nil
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
			Should(gomega.BeTrue(), "a resize adding 1 cpu to the 500m charged must be refused by the 1 cpu quota")
		expectForbidden(err, "a resize to 1500m",
			`pods "resizable" is forbidden: exceeded quota: cpu-requests, requested: requests.cpu=1, used: requests.cpu=500m, limited: requests.cpu=1`)
		gomega.Expect(resize("1")).To(gomega.Succeed(), "a resize adding 500m, up to the quota's 1 cpu, must be admitted")
	})
})
