package nodeadmit

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// holdsTheNodesResources: a case that fills a node's allocatable to the
// last unit reads, before it starts, what the node's pods already hold.
var holdsTheNodesResources = spec.Isolation{Exclusive: []string{spec.NodesState},
	Reason: "fills a node's allocatable to the last unit from what its pods hold when the case starts: another case's pod on the node meanwhile would change both"}

// boundaryResources are the resources whose rejection boundary the specs
// find, with the unit the kubelet counts them in.
var boundaryResources = []struct {
	name corev1.ResourceName
	unit string
}{
	{corev1.ResourceCPU, "millicores"},
	{corev1.ResourceMemory, "bytes"},
	{corev1.ResourceEphemeralStorage, "bytes"},
	{nodes.ExtendedResource, "units"},
}

// outOf is the kubelet's Reason for a pod that asks more of name than the
// node has left (pkg/kubelet/lifecycle/predicate.go).
func outOf(name corev1.ResourceName) string { return "OutOf" + string(name) }

// insufficient is the kubelet's message (after "Pod was rejected: ") for a
// pod asking requested of name when the node's pods hold used of its
// capacity (predicate.go InsufficientResourceError: the numbers are in the
// unit nodedecision.Amount gives).
func insufficient(name corev1.ResourceName, requested, used, capacity int64) string {
	return fmt.Sprintf("Node didn't have enough resource: %s, requested: %d, used: %d, capacity: %d", name, requested, used, capacity)
}

// asking is a subject pod whose one container requests the given amounts
// (in nodedecision.Amount's units); extended resources are limits too, as the
// API requires.
func asking(f *harness.Framework, node, name string, amounts map[corev1.ResourceName]int64) *corev1.Pod {
	pod := subject(f, node, name)
	requests := corev1.ResourceList{}
	limits := corev1.ResourceList{}
	for res, n := range amounts {
		requests[res] = nodedecision.Quantity(res, n)
		if isExtended(res) {
			limits[res] = nodedecision.Quantity(res, n)
		}
	}
	pod.Spec.Containers[0].Resources.Requests = requests
	if len(limits) > 0 {
		pod.Spec.Containers[0].Resources.Limits = limits
	}
	return pod
}

func isExtended(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods:
		return false
	}
	return true
}

// expectAdmitted creates pod and expects its node to run it.
func expectAdmitted(ctx context.Context, f *harness.Framework, pod *corev1.Pod) nodes.Decision {
	d, err := nodedecision.Decide(ctx, f, pod)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(d.Admitted).To(gomega.BeTrue(), "node %s rejected pod %s asking %v (%s: %s)",
		pod.Spec.NodeName, pod.Name, pod.Spec.Containers[0].Resources.Requests, d.Pod.Status.Reason, d.Pod.Status.Message)
	gomega.Expect(d.Pod.Status.Phase).To(gomega.Equal(corev1.PodRunning), "pod %s", pod.Name)
	return d
}

// expectRejectedAs creates pod and expects its node to reject it with
// want (expectRejected's checks).
func expectRejectedAs(ctx context.Context, f *harness.Framework, pod *corev1.Pod, want rejection) {
	d, err := nodedecision.Decide(ctx, f, pod)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	expectRejected(ctx, f, d, want)
}

// placedOn reads what node's pods hold and records the numbers of the
// resources the case uses.
func placedOn(ctx context.Context, f *harness.Framework, node string, names ...corev1.ResourceName) *nodedecision.Placed {
	placed, err := nodedecision.PlacedOn(ctx, f, node)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	for _, name := range names {
		unit := "units"
		for _, r := range boundaryResources {
			if r.name == name {
				unit = r.unit
			}
		}
		if name == corev1.ResourcePods {
			unit = "pods"
		}
		labels := map[string]string{"resource": string(name), "node": node}
		f.Record(results.Measurement{Name: "node-allocatable", Value: float64(placed.Allocatable(name)), Unit: unit, Labels: labels})
		f.Record(results.Measurement{Name: "node-used", Value: float64(placed.Used(name)), Unit: unit, Labels: labels})
		gomega.Expect(placed.Remaining(name)).To(gomega.BeNumerically(">=", 0),
			"node %s's pods hold %d of its allocatable %d %s", node, placed.Used(name), placed.Allocatable(name), name)
	}
	return placed
}

var admitsUpToAllocatable = spec.Spec{
	ShortName: "KubeletAdmitsUpToAllocatable",
	Suite:     "nodeadmit",
	Description: "A pod asking exactly what the node's allocatable CPU, memory, ephemeral storage or extended resource " +
		"has left after the requests of the node's non-terminal pods is admitted, and one asking one unit more is rejected " +
		"with Reason OutOf<resource> and a message giving requested, used and capacity.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: holdsTheNodesResources,
}

var _ = describe(admitsUpToAllocatable, func(f *harness.Framework) {
	for _, r := range boundaryResources {
		ginkgo.It(fmt.Sprintf("rejects one %s more than is left with Reason %s, admits exactly what is left, then rejects one %s more",
			unitName(r.name), outOf(r.name), unitName(r.name)), func(ctx ginkgo.SpecContext) {
			// An extended resource exhausted keeps off the node only the
			// pods that ask for it: any node will do. CPU, memory or
			// storage filled keeps every other pod off: hollow nodes only.
			node := builtInNode(f)
			if !isExtended(r.name) {
				node = hollowNode(ctx, f, fillingKeepsPodsOff).Name
			}
			expectControlAdmitted(ctx, f, nodedecision.Pod(f, node, "control"))
			placed := placedOn(ctx, f, node, r.name)
			if _, ok := placed.Node.Status.Allocatable[r.name]; !ok && isExtended(r.name) {
				ginkgo.Skip(notSupported(fmt.Sprintf("node %s advertises no %s", node, r.name)))
			}
			capacity, used, left := placed.Allocatable(r.name), placed.Used(r.name), placed.Remaining(r.name)
			ginkgo.GinkgoWriter.Printf("node %s: %s allocatable %d, held by %d non-terminal pods %d, left %d\n",
				node, r.name, capacity, len(placed.Pods), used, left)

			// The smallest pod that does not fit, while nothing of the
			// case's holds any of the resource.
			expectRejectedAs(ctx, f, asking(f, node, "over", map[corev1.ResourceName]int64{r.name: left + 1}),
				rejection{reason: outOf(r.name), message: insufficient(r.name, left+1, used, capacity)})
			// The largest that fits (the rejected pod holds nothing).
			expectAdmitted(ctx, f, asking(f, node, "fits", map[corev1.ResourceName]int64{r.name: left}))
			// The kubelet counts the pod it admitted: not one unit is left.
			expectRejectedAs(ctx, f, asking(f, node, "one-more", map[corev1.ResourceName]int64{r.name: 1}),
				rejection{reason: outOf(r.name), message: insufficient(r.name, 1, capacity, capacity)})
		})
	}

	ginkgo.It("counts a pod's CPU as its largest init container, plus the sidecars started before it, plus its overhead, at the boundary", func(ctx ginkgo.SpecContext) {
		node := hollowNode(ctx, f, fillingKeepsPodsOff).Name
		expectControlAdmitted(ctx, f, nodedecision.Pod(f, node, "control"))
		placed := placedOn(ctx, f, node, corev1.ResourceCPU)
		capacity, used, left := placed.Allocatable(corev1.ResourceCPU), placed.Used(corev1.ResourceCPU), placed.Remaining(corev1.ResourceCPU)
		const overhead, sidecar, app = 100, 100, 200 // millicores
		if left < 2*(overhead+sidecar+app) {
			ginkgo.Skip(notSupported(fmt.Sprintf("node %s has %dm CPU left; the case needs %dm", node, left, 2*(overhead+sidecar+app))))
		}
		ginkgo.GinkgoWriter.Printf("node %s: cpu allocatable %dm, held %dm, left %dm\n", node, capacity, used, left)
		rc := runtimeClassWithOverhead(ctx, f, overhead)

		// While the regular init container runs, the sidecar started before
		// it runs too: the pod holds init+sidecar (more than its app and
		// sidecar containers) plus the overhead, exactly what is left. A
		// kubelet summing every container rejects "fits"; one leaving out
		// the init container, the sidecar or the overhead admits "over",
		// or finds room for "one-more".
		composite := func(name string, init int64) *corev1.Pod {
			pod := asking(f, node, name, map[corev1.ResourceName]int64{corev1.ResourceCPU: app})
			pod.Spec.RuntimeClassName = &rc.Name
			pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
			pod.Spec.InitContainers = []corev1.Container{
				{Name: "sidecar", Image: nodedecision.Image, RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: nodedecision.Quantity(corev1.ResourceCPU, sidecar)}}},
				{Name: "init", Image: nodedecision.Image,
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: nodedecision.Quantity(corev1.ResourceCPU, init)}}},
			}
			return pod
		}
		init := left - overhead - sidecar
		over, fits := composite("over", init+1), composite("fits", init)
		gomega.Expect(cpuOf(fits)).To(gomega.Equal(left), "the case's own arithmetic")

		// A regular init container never ends here (the pause image, on
		// a fake or a real runtime): the pod stays Pending, and the node
		// running that container shows it admitted the pod.
		d, err := nodedecision.DecideStarted(ctx, f, over, "init")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		expectRejected(ctx, f, d, rejection{reason: outOf(corev1.ResourceCPU), message: insufficient(corev1.ResourceCPU, left+1, used, capacity)})
		d, err = nodedecision.DecideStarted(ctx, f, fits, "init")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(d.Admitted).To(gomega.BeTrue(), "node %s rejected pod %s (%s: %s)", node, fits.Name, d.Pod.Status.Reason, d.Pod.Status.Message)
		expectRejectedAs(ctx, f, asking(f, node, "one-more", map[corev1.ResourceName]int64{corev1.ResourceCPU: 1}),
			rejection{reason: outOf(corev1.ResourceCPU), message: insufficient(corev1.ResourceCPU, 1, capacity, capacity)})
	})
})

// cpuOf is what the kubelet counts of pod's CPU, in millicores.
func cpuOf(pod *corev1.Pod) int64 {
	return nodedecision.Amount(corev1.ResourceCPU, nodedecision.PodRequests(pod)[corev1.ResourceCPU])
}

// runtimeClassWithOverhead creates a RuntimeClass whose pods carry an
// overhead of cpu millicores (the RuntimeClass admission plugin checks a
// pod's spec.overhead against it), deleted after the case. Its handler is
// runc, the default handler of containerd (the kind provider's node, whose
// pods must start) and CRI-O; the fake runtime of a hollow node runs any.
func runtimeClassWithOverhead(ctx context.Context, f *harness.Framework, cpu int64) *nodev1.RuntimeClass {
	rc, err := f.Client.NodeV1().RuntimeClasses().Create(ctx, &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: f.Namespace + "-overhead", Labels: map[string]string{harness.RunLabel: f.Env.RunID}},
		Handler:    "runc",
		Overhead:   &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: nodedecision.Quantity(corev1.ResourceCPU, cpu)}},
	}, metav1.CreateOptions{})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) error {
		err := f.Client.NodeV1().RuntimeClasses().Delete(ctx, rc.Name, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	return rc
}

// unitName is the smallest amount of name a pod can ask for.
func unitName(name corev1.ResourceName) string {
	switch name {
	case corev1.ResourceCPU:
		return "millicore of cpu"
	case corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return "byte of " + string(name)
	}
	return "unit of " + string(name)
}
