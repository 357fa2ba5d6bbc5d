package ordering

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// podTotalsRange constrains only the Pod type, with no Container item:
// nothing defaults a container's request or limit, so what a pod leaves
// unset reaches the constraints as unset.
func podTotalsRange() *corev1.LimitRange {
	q := resource.MustParse
	return &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-totals"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypePod,
			Min:                  corev1.ResourceList{corev1.ResourceMemory: q("64Mi")},
			Max:                  corev1.ResourceList{corev1.ResourceCPU: q("1500m")},
			MaxLimitRequestRatio: corev1.ResourceList{corev1.ResourceCPU: q("2")},
		}, {Type: corev1.LimitTypePersistentVolumeClaim,
			// A claim requests storage only; the max of another resource
			// finds no request to compare.
			Max: corev1.ResourceList{corev1.ResourceStorage: q("2Gi"), claimIOPS: q("100")},
		}}},
	}
}

// claimIOPS is a resource a PersistentVolumeClaim-type item may constrain
// (any qualified name) but no claim below requests.
const claimIOPS corev1.ResourceName = "admission-conformance.io/iops"

// resources builds requirements from "cpu"/"memory" request and limit
// strings; an empty string leaves that entry unset.
func resources(cpuReq, cpuLim, memReq, memLim string) corev1.ResourceRequirements {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	for _, e := range []struct {
		list  corev1.ResourceList
		name  corev1.ResourceName
		value string
	}{{r.Requests, corev1.ResourceCPU, cpuReq}, {r.Limits, corev1.ResourceCPU, cpuLim},
		{r.Requests, corev1.ResourceMemory, memReq}, {r.Limits, corev1.ResourceMemory, memLim}} {
		if e.value != "" {
			e.list[e.name] = resource.MustParse(e.value)
		}
	}
	return r
}

// limitRangerPodTotals adds the cases of a Pod-type LimitRange (the sums
// over a pod's containers, or its pod-level resources) and of a claim being
// deleted to LimitRangerConstraints.
func limitRangerPodTotals(f *harness.Framework) {
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	pod := func(name string, containers ...corev1.ResourceRequirements) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for i, r := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c" + string(rune('0'+i)), Image: "registry.k8s.io/pause:3.10", Resources: r})
		}
		return p
	}

	ginkgo.It("judges a Pod-type LimitRange on the pod's summed requests and limits, unset ones and pod-level resources included, and a claim's unset request", func(ctx ginkgo.SpecContext) {
		_, err := f.Client.CoreV1().LimitRanges(f.Namespace).Create(ctx, podTotalsRange(), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// Each pod breaks one constraint of the range (the third two that
		// share a cause); the messages are LimitRanger's, in the order it
		// checks min, max, then the ratio.
		levelled := pod("pod-level", resources("100m", "200m", "128Mi", ""))
		levelled.Spec.Resources = &[]corev1.ResourceRequirements{resources("1", "2", "128Mi", "")}[0]
		for _, tc := range []struct {
			what, message string
			pod           *corev1.Pod
		}{
			{"a pod that requests no memory", "minimum memory usage per Pod is 64Mi.  No request is specified",
				pod("no-memory", resources("300m", "500m", "", ""))},
			// One container has no memory limit: the pod's limit sum is
			// below the min while its request sum is not.
			{"a pod whose memory limits add up below the min", "minimum memory usage per Pod is 64Mi, but limit is 32Mi",
				pod("limit-below-min", resources("300m", "500m", "32Mi", "32Mi"), resources("300m", "", "32Mi", ""))},
			{"a pod with no cpu limit", "[maximum cpu usage per Pod is 1500m.  No limit is specified, " +
				"cpu max limit to request ratio per Pod is 2, but no limit is specified or limit is 0]",
				pod("no-cpu-limit", resources("300m", "", "128Mi", ""))},
			// One container has no cpu limit: the request sum is above the
			// max while the limit sum is not.
			{"a pod whose cpu requests add up above the max", "maximum cpu usage per Pod is 1500m, but request is 2",
				pod("request-above-max", resources("1", "1", "128Mi", ""), resources("1", "", "128Mi", ""))},
			{"a pod requesting no cpu", "cpu max limit to request ratio per Pod is 2, but no request is specified or request is 0",
				pod("zero-request", resources("0", "500m", "128Mi", ""))},
			{"a pod whose cpu limit is more than twice its request", "cpu max limit to request ratio per Pod is 2, but provided ratio is 5.000000",
				pod("pod-ratio", resources("200m", "1", "128Mi", ""))},
			// Pod-level resources replace the containers' sums (200m here).
			{"a pod whose pod-level cpu limit is above the max", "maximum cpu usage per Pod is 1500m, but limit is 2", levelled},
		} {
			_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, tc.pod, dryRun)
			expectForbidden(err, tc.what, `pods "`+tc.pod.Name+`" is forbidden: `+tc.message)
		}
		_, err = f.Client.CoreV1().PersistentVolumeClaims(f.Namespace).Create(ctx, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "no-iops"}, Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			}}, dryRun)
		expectForbidden(err, "a claim that does not request a resource the range has a max for",
			`persistentvolumeclaims "no-iops" is forbidden: maximum `+string(claimIOPS)+` usage per PersistentVolumeClaim is 100.  No request is specified`)
		_, err = f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod("within", resources("300m", "500m", "128Mi", ""), resources("300m", "500m", "", "")), dryRun)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a pod within every Pod constraint must be admitted")
	})

	ginkgo.It("does not judge the update of a PersistentVolumeClaim that is being deleted", func(ctx ginkgo.SpecContext) {
		// The claim is created before the range, so it is stored below the
		// min; a finalizer of the case's own keeps it while it is deleted.
		claims := f.Client.CoreV1().PersistentVolumeClaims(f.Namespace)
		_, err := claims.Create(ctx, &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"admission-conformance.io/hold"}},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("500Mi")}}},
		}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(func(ctx context.Context) error {
			_, err := claims.Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			return err
		})
		_, err = f.Client.CoreV1().LimitRanges(f.Namespace).Create(ctx, constrainedRange(), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		label := func(value string, opts metav1.PatchOptions) error {
			_, err := claims.Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"labels":{"touched":"`+value+`"}}}`), opts)
			return err
		}
		dryRunPatch := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}
		// An update of the claim is judged once LimitRanger has seen the
		// range (its informer may lag the create).
		var err2 error
		gomega.Eventually(ctx, func() error {
			err2 = label("before", dryRunPatch)
			return err2
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.HaveOccurred(),
			"an update of a claim below the range's min must be refused")
		expectForbidden(err2, "an update of a claim below the min",
			`persistentvolumeclaims "held" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi`)

		gomega.Expect(claims.Delete(ctx, "held", metav1.DeleteOptions{})).To(gomega.Succeed())
		gomega.Expect(label("after", metav1.PatchOptions{})).To(gomega.Succeed(),
			"LimitRanger ignores objects marked for deletion: the update of the deleting claim must be admitted")
		got, err := claims.Get(ctx, "held", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(got.DeletionTimestamp).NotTo(gomega.BeNil(), "the claim is being deleted")
		gomega.Expect(got.Labels).To(gomega.HaveKeyWithValue("touched", "after"))
	})
}
