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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// resourceQuotaCharges adds to ResourceQuotaConstraints what a request is
// charged: nothing where no quota tracks it, and on an update only the
// quotas whose usage it changes, a quota it moves the object into included.
func resourceQuotaCharges(f *harness.Framework) {
	ginkgo.It("charges nothing no quota tracks, and charges a pod that moves into a quota's scope to that quota only", func(ctx ginkgo.SpecContext) {
		pods := f.Client.CoreV1().Pods(f.Namespace)
		dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
		// refusedWith is a probe for createQuotaInForce: in force once the
		// request is refused naming quota.
		refusedWith := func(quota string, request func(ctx context.Context, client kubernetes.Interface) error) quotaProbe {
			return func(ctx context.Context, client kubernetes.Interface) (bool, error) {
				err := request(ctx, client)
				switch {
				case err == nil:
					return false, nil
				case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota: "+quota+","):
					return true, nil
				}
				return false, err
			}
		}
		quota := func(name string, hard int64, scopes ...corev1.ResourceQuotaScope) *corev1.ResourceQuota {
			r := corev1.ResourcePods
			if name == "secrets" {
				r = corev1.ResourceSecrets
			}
			return &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{r: *resource.NewQuantity(hard, resource.DecimalSI)}, Scopes: scopes}}
		}

		// A quota on secrets only: pods are not what it tracks.
		gomega.Expect(createQuotaInForce(ctx, f, quota("secrets", 0), refusedWith("secrets", func(ctx context.Context, client kubernetes.Interface) error {
			_, err := client.CoreV1().Secrets(f.Namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "probe"}}, dryRun)
			return err
		}))).To(gomega.Succeed(), "the secrets quota must be in force")
		var p corev1.Pod
		gomega.Expect(fixture(f, "ordering/pod.yaml", &p, "")).To(gomega.Succeed())
		p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}
		created, err := pods.Create(ctx, &p, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a pod no quota tracks must be admitted")
		// resize reads the pod first: each resize and update changes its
		// resourceVersion.
		resize := func(cpu string) error {
			r, err := pods.Get(ctx, created.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			r.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
			_, err = pods.UpdateResize(ctx, r.Name, r, metav1.UpdateOptions{})
			return err
		}
		gomega.Expect(resize("400m")).To(gomega.Succeed(), "a resize down no quota tracks must be admitted")
		gomega.Expect(resize("600m")).To(gomega.Succeed(), "a resize up no quota tracks must be admitted")

		// A quota on every pod, full with the one pod there is.
		gomega.Expect(createQuotaInForce(ctx, f, quota("all", 1), refusedWith("all", func(ctx context.Context, client kubernetes.Interface) error {
			extra := p.DeepCopy()
			extra.Name = "extra"
			_, err := client.CoreV1().Pods(f.Namespace).Create(ctx, extra, dryRun)
			return err
		}))).To(gomega.Succeed(), "the quota on all pods must be in force")
		// A quota on terminating pods (activeDeadlineSeconds set), with no
		// room: the pod is not in its scope yet.
		terminate := func(ctx context.Context, client kubernetes.Interface, opts metav1.PatchOptions) error {
			_, err := client.CoreV1().Pods(f.Namespace).Patch(ctx, created.Name, types.StrategicMergePatchType,
				[]byte(`{"spec":{"activeDeadlineSeconds":3600}}`), opts)
			return err
		}
		dryRunPatch := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}
		gomega.Expect(createQuotaInForce(ctx, f, quota("terminating", 0, corev1.ResourceQuotaScopeTerminating),
			refusedWith("terminating", func(ctx context.Context, client kubernetes.Interface) error {
				return terminate(ctx, client, dryRunPatch)
			}))).To(gomega.Succeed(), "the quota on terminating pods must be in force")
		// Setting activeDeadlineSeconds moves the pod into the terminating
		// quota, which is charged a pod; the quota on all pods, full, is
		// not charged again: the pod was in it already.
		expectForbidden(terminate(ctx, f.Client, dryRunPatch), "an update moving the pod into a full quota's scope",
			`pods "subject" is forbidden: exceeded quota: terminating, requested: pods=1, used: pods=0, limited: pods=0`)
		_, err = f.Client.CoreV1().ResourceQuotas(f.Namespace).Patch(ctx, "terminating", types.MergePatchType,
			[]byte(`{"spec":{"hard":{"pods":"1"}}}`), metav1.PatchOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var last error
		gomega.Eventually(ctx, func(ctx context.Context) error {
			last = terminate(ctx, f.Client, metav1.PatchOptions{})
			if apierrors.IsForbidden(last) && strings.Contains(last.Error(), "exceeded quota: terminating,") {
				return last // the raised hard limit has not reached the plugin yet
			}
			return nil
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
		gomega.Expect(last).NotTo(gomega.HaveOccurred(),
			"with room in the terminating quota, moving the pod into its scope must be admitted: the full quota on all pods is not charged again")

		// Down again: a resize that lowers what both quotas track charges neither.
		gomega.Expect(resize("300m")).To(gomega.Succeed(), "a resize down within both quotas must be admitted")
	})
}
