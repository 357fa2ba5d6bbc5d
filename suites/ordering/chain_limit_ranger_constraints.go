package ordering

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var limitRangerConstraints = spec.Spec{
	ShortName: "LimitRangerConstraints",
	Suite:     "ordering",
	Description: "LimitRanger's validating phase enforces every constraint a LimitRange states, on what reaches it: a " +
		"container's or init container's min, max and maxLimitRequestRatio, a pod's max over the sum of its containers and " +
		"sidecars, defaults written into init containers and listed in kubernetes.io/limit-ranger, " +
		"a PersistentVolumeClaim's min and max storage request, a pod's resize; each refusal is 403 with the constraint's message, " +
		"every broken constraint is listed, and an object within them all is admitted.",
	Profile: spec.Core,
	Seed: "003 compiled admission plugins (LimitRanger); kubernetes.io Limit Ranges (\"LimitRange validation occurs only " +
		"at Pod admission stage\"); k8s.io/api core/v1 LimitRangeItem (min, max, maxLimitRequestRatio per type)",
}

// constrainedRange is the case's LimitRange: the constraint values the
// messages below name.
func constrainedRange() *corev1.LimitRange {
	q := resource.MustParse
	return &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: "constraints"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{
			{Type: corev1.LimitTypeContainer,
				Min:                  corev1.ResourceList{corev1.ResourceCPU: q("100m")},
				Max:                  corev1.ResourceList{corev1.ResourceCPU: q("1")},
				MaxLimitRequestRatio: corev1.ResourceList{corev1.ResourceCPU: q("2")},
				DefaultRequest:       corev1.ResourceList{corev1.ResourceCPU: q("300m")},
				Default:              corev1.ResourceList{corev1.ResourceCPU: q("500m")}},
			{Type: corev1.LimitTypePod, Max: corev1.ResourceList{corev1.ResourceCPU: q("1500m")}},
			{Type: corev1.LimitTypePersistentVolumeClaim,
				Min: corev1.ResourceList{corev1.ResourceStorage: q("1Gi")},
				Max: corev1.ResourceList{corev1.ResourceStorage: q("2Gi")}},
		}},
	}
}

// cpu is a container's cpu request and limit.
func cpu(request, limit string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(request)},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(limit)},
	}
}

var _ = harness.Describe(limitRangerConstraints, func(f *harness.Framework) {
	// setUp creates the LimitRange before any pod or claim reaches
	// LimitRanger in the namespace (see LimitRangerAroundWebhooks: with none
	// in its informer it lists them live).
	setUp := func(ctx ginkgo.SpecContext) {
		_, err := f.Client.CoreV1().LimitRanges(f.Namespace).Create(ctx, constrainedRange(), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
	}
	// Dry runs only: LimitRanger judges them like any create, and nothing
	// is stored or scheduled.
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	pod := func(name string, containers []corev1.ResourceRequirements, init *corev1.ResourceRequirements) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for i, r := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "c" + string(rune('0'+i)), Image: "registry.k8s.io/pause:3.10", Resources: r})
		}
		if init != nil {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "registry.k8s.io/pause:3.10", Resources: *init}}
		}
		return p
	}
	sidecar := func(p *corev1.Pod) *corev1.Pod {
		p.Spec.InitContainers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
		return p
	}
	createPod := func(ctx context.Context, p *corev1.Pod) error {
		_, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, p, dryRun)
		return err
	}

	limitRangerPodTotals(f)

	ginkgo.It("refuses a pod for each broken container, init container or pod constraint with 403 and its message", func(ctx ginkgo.SpecContext) {
		setUp(ctx)
		within := cpu("300m", "500m")
		for _, tc := range []struct {
			what, message string
			pod           *corev1.Pod
		}{
			{"a container requesting less than the min", "minimum cpu usage per Container is 100m, but request is 50m",
				pod("below-min", []corev1.ResourceRequirements{cpu("50m", "100m")}, nil)},
			{"a container limited above the max", "maximum cpu usage per Container is 1, but limit is 1200m",
				pod("above-max", []corev1.ResourceRequirements{cpu("800m", "1200m")}, nil)},
			{"a container whose limit is more than twice its request", "cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000",
				pod("ratio", []corev1.ResourceRequirements{cpu("200m", "1")}, nil)},
			{"an init container requesting less than the min", "minimum cpu usage per Container is 100m, but request is 50m",
				pod("init-below-min", []corev1.ResourceRequirements{within}, &corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}})},
			{"an init container limited above the max", "maximum cpu usage per Container is 1, but limit is 1200m",
				pod("init-above-max", []corev1.ResourceRequirements{within}, &[]corev1.ResourceRequirements{cpu("800m", "1200m")}[0])},
			{"an init container whose limit is more than twice its request", "cpu max limit to request ratio per Container is 2, but provided ratio is 5.000000",
				pod("init-ratio", []corev1.ResourceRequirements{within}, &[]corev1.ResourceRequirements{cpu("200m", "1")}[0])},
			{"a pod whose containers' limits add up above the pod max", "maximum cpu usage per Pod is 1500m, but limit is 3",
				pod("pod-above-max", []corev1.ResourceRequirements{cpu("600m", "1"), cpu("600m", "1"), cpu("600m", "1")}, nil)},
			// A sidecar (an init container with restartPolicy Always) runs
			// beside the containers, so its limit adds to theirs.
			{"a pod whose container and sidecar limits add up above the pod max", "maximum cpu usage per Pod is 1500m, but limit is 2",
				sidecar(pod("sidecar-above-max", []corev1.ResourceRequirements{cpu("600m", "1")}, &[]corev1.ResourceRequirements{cpu("600m", "1")}[0]))},
		} {
			err := createPod(ctx, tc.pod)
			expectForbidden(err, tc.what, `pods "`+tc.pod.Name+`" is forbidden: `+tc.message)
		}
		// The control: a pod within every constraint, with two containers
		// and an init container, is admitted.
		gomega.Expect(createPod(ctx, pod("within", []corev1.ResourceRequirements{within, within}, &within))).To(gomega.Succeed(),
			"a pod within every constraint must be admitted")
	})

	ginkgo.It("refuses a resize (pods/resize) that breaks a container constraint, and admits one within", func(ctx ginkgo.SpecContext) {
		// LimitRanger judges the resize subresource of a pod like a create:
		// in-place resize may not take a container past the LimitRange.
		setUp(ctx)
		var p corev1.Pod
		gomega.Expect(fixture(f, "ordering/pod.yaml", &p, "")).To(gomega.Succeed())
		p.Name = "resizable"
		p.Spec.Containers[0].Resources = cpu("300m", "500m")
		created, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, &p, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		resize := func(request, limit string) error {
			r := created.DeepCopy()
			r.Spec.Containers[0].Resources = cpu(request, limit)
			_, err := f.Client.CoreV1().Pods(f.Namespace).UpdateResize(ctx, r.Name, r, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}
		expectForbidden(resize("1", "1200m"), "a resize above the container max",
			`pods "resizable" is forbidden: maximum cpu usage per Container is 1, but limit is 1200m`)
		gomega.Expect(resize("400m", "800m")).To(gomega.Succeed(), "a resize within every constraint must be admitted")
	})

	ginkgo.It("writes its defaults into init containers too, and lists them all in kubernetes.io/limit-ranger", func(ctx ginkgo.SpecContext) {
		setUp(ctx)
		got, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx,
			pod("defaulted", []corev1.ResourceRequirements{{}}, &corev1.ResourceRequirements{}), dryRun)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		want := cpu("300m", "500m")
		for _, c := range append(got.Spec.Containers, got.Spec.InitContainers...) {
			gomega.Expect(c.Resources.Requests.Cpu().Cmp(want.Requests[corev1.ResourceCPU])).To(gomega.BeZero(),
				"%s must get the default cpu request 300m, got %v", c.Name, c.Resources.Requests)
			gomega.Expect(c.Resources.Limits.Cpu().Cmp(want.Limits[corev1.ResourceCPU])).To(gomega.BeZero(),
				"%s must get the default cpu limit 500m, got %v", c.Name, c.Resources.Limits)
		}
		gomega.Expect(got.Annotations).To(gomega.HaveKeyWithValue(limitRangerAnnotation,
			"LimitRanger plugin set: cpu request for container c0; cpu limit for container c0; "+
				"cpu request for init container init; cpu limit for init container init"))
	})

	ginkgo.It("lists every constraint a pod breaks", func(ctx ginkgo.SpecContext) {
		setUp(ctx)
		err := createPod(ctx, pod("several", []corev1.ResourceRequirements{cpu("50m", "1")}, nil))
		expectForbidden(err, "a container below the min and above the ratio",
			`pods "several" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, `+
				`cpu max limit to request ratio per Container is 2, but provided ratio is 20.000000]`)
	})

	ginkgo.It("refuses a PersistentVolumeClaim requesting storage below the min or above the max, and admits one between", func(ctx ginkgo.SpecContext) {
		setUp(ctx)
		claim := func(name, storage string) *corev1.PersistentVolumeClaim {
			return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(storage)}},
			}}
		}
		create := func(c *corev1.PersistentVolumeClaim) error {
			_, err := f.Client.CoreV1().PersistentVolumeClaims(f.Namespace).Create(ctx, c, dryRun)
			return err
		}
		expectForbidden(create(claim("small", "500Mi")), "a claim below the min",
			`persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi`)
		expectForbidden(create(claim("large", "5Gi")), "a claim above the max",
			`persistentvolumeclaims "large" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi`)
		gomega.Expect(create(claim("between", "1500Mi"))).To(gomega.Succeed(), "a claim between min and max must be admitted")
	})
})
