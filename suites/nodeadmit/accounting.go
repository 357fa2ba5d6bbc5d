package nodeadmit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var releasesRequests = spec.Spec{
	ShortName: "KubeletReleasesRequests",
	Suite:     "nodeadmit",
	Description: "The kubelet does not count the requests of the pods it rejected, and releases those of a pod that has " +
		"finished or been deleted: a pod asking everything the node has left is then admitted.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: holdsTheNodesResources,
}

// theRest is what a case fills: every resource of boundaryResources the
// node has some of left, and how much.
type theRest struct {
	node           string
	capacity, left map[corev1.ResourceName]int64
	names          []corev1.ResourceName
}

// readTheRest reads what node has left of each boundary resource.
func readTheRest(ctx context.Context, f *harness.Framework, node string) theRest {
	var names []corev1.ResourceName
	for _, r := range boundaryResources {
		names = append(names, r.name)
	}
	placed := placedOn(ctx, f, node, names...)
	rest := theRest{node: node, capacity: map[corev1.ResourceName]int64{}, left: map[corev1.ResourceName]int64{}}
	for _, name := range names {
		if placed.Remaining(name) > 0 {
			rest.names = append(rest.names, name)
			rest.capacity[name] = placed.Allocatable(name)
			rest.left[name] = placed.Remaining(name)
		}
	}
	ginkgo.GinkgoWriter.Printf("node %s: left %v of allocatable %v (%d non-terminal pods)\n", node, rest.left, rest.capacity, len(placed.Pods))
	gomega.Expect(rest.names).To(gomega.ContainElement(corev1.ResourceCPU), "node %s has no CPU left", node)
	return rest
}

// everything is a pod asking all that is left.
func (r theRest) everything(f *harness.Framework, name string) *corev1.Pod {
	return asking(f, r.node, name, r.left)
}

// expectNothingLeft shows the kubelet counts what it admitted: one unit
// more of any resource is rejected, the node's pods holding its capacity.
func (r theRest) expectNothingLeft(ctx context.Context, f *harness.Framework, prefix string) {
	for _, name := range r.names {
		expectRejectedAs(ctx, f, asking(f, r.node, fmt.Sprintf("%s-%s", prefix, shortResource(name)), map[corev1.ResourceName]int64{name: 1}),
			rejection{reason: outOf(name), message: insufficient(name, 1, r.capacity[name], r.capacity[name])})
	}
}

// shortResource makes a resource name fit a pod name.
func shortResource(name corev1.ResourceName) string {
	switch name {
	case corev1.ResourceCPU:
		return "cpu"
	case corev1.ResourceMemory:
		return "memory"
	case corev1.ResourceEphemeralStorage:
		return "storage"
	}
	return "extended"
}

var _ = describe(releasesRequests, func(f *harness.Framework) {
	ginkgo.It("does not count the requests of the pods it rejected", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		expectControlAdmitted(ctx, f, nodedecision.Pod(f, node, "control"))
		rest := readTheRest(ctx, f, node)
		used := map[corev1.ResourceName]int64{}
		for _, name := range rest.names {
			used[name] = rest.capacity[name] - rest.left[name]
		}
		// One rejected pod per resource, each asking one unit more than is
		// left, and one asking more of everything: the node's used amount
		// stays what it was.
		for _, name := range rest.names {
			expectRejectedAs(ctx, f, asking(f, node, "over-"+shortResource(name), map[corev1.ResourceName]int64{name: rest.left[name] + 1}),
				rejection{reason: outOf(name), message: insufficient(name, rest.left[name]+1, used[name], rest.capacity[name])})
		}
		more := map[corev1.ResourceName]int64{}
		for _, name := range rest.names {
			more[name] = rest.left[name] + 1
		}
		expectRejectedAs(ctx, f, asking(f, node, "over-all", more), rejection{reason: outOf(corev1.ResourceCPU),
			message: insufficient(corev1.ResourceCPU, rest.left[corev1.ResourceCPU]+1, used[corev1.ResourceCPU], rest.capacity[corev1.ResourceCPU])})

		expectAdmitted(ctx, f, rest.everything(f, "everything"))
		rest.expectNothingLeft(ctx, f, "one-more")
	})

	ginkgo.It("releases the requests of a pod that has finished (run past its activeDeadlineSeconds)", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		expectControlAdmitted(ctx, f, nodedecision.Pod(f, node, "control"))
		rest := readTheRest(ctx, f, node)
		d := expectAdmitted(ctx, f, rest.everything(f, "finishing"))
		rest.expectNothingLeft(ctx, f, "while-running")

		// A hollow node's fake runtime never ends a container (it ignores
		// the command, and only the kubelet's StopContainer exits one): the
		// pod finishes by running past a deadline set now, one second after
		// its start. The kubelet stops its containers and fails it with
		// Reason DeadlineExceeded. (Set at creation, the deadline could
		// end the pod before the case saw it counted.)
		patch := []byte(`{"spec":{"activeDeadlineSeconds":1}}`)
		_, err := f.Client.CoreV1().Pods(f.Namespace).Patch(ctx, d.Pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var finished *corev1.Pod
		gomega.Eventually(ctx, func(ctx context.Context) error {
			cur, err := nodedecision.Current(ctx, f, d.Pod)
			if err != nil {
				return err
			}
			if cur.Status.Phase != corev1.PodFailed {
				return fmt.Errorf("pod %s is %s", cur.Name, cur.Status.Phase)
			}
			finished = cur
			return nil
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
		gomega.Expect(finished.Status.Reason).To(gomega.Equal("DeadlineExceeded"), "reason of the finished pod (%s)", finished.Status.Message)

		// Reported Failed, the pod may still be stopping inside the
		// kubelet, which counts it until it has: the next pod asking
		// everything is admitted within the ObjectState bound.
		expectAdmittedOnceReleased(ctx, f, rest, "after-finish")
		rest.expectNothingLeft(ctx, f, "one-more")
	})

	ginkgo.It("releases the requests of a pod deleted gracefully once it has left the API", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		expectControlAdmitted(ctx, f, nodedecision.Pod(f, node, "control"))
		rest := readTheRest(ctx, f, node)
		d := expectAdmitted(ctx, f, rest.everything(f, "deleted"))
		rest.expectNothingLeft(ctx, f, "while-running")
		// A graceful deletion of a pod the kubelet runs ends when the
		// kubelet, done with the pod, removes it from the API: from then
		// on it holds nothing.
		expectDeleted(ctx, f, d.Pod, nil)
		expectAdmitted(ctx, f, rest.everything(f, "after-delete"))
		rest.expectNothingLeft(ctx, f, "one-more")
	})

	ginkgo.It("releases the requests of a pod deleted with grace period 0", func(ctx ginkgo.SpecContext) {
		node := builtInNode(f)
		expectControlAdmitted(ctx, f, nodedecision.Pod(f, node, "control"))
		rest := readTheRest(ctx, f, node)
		d := expectAdmitted(ctx, f, rest.everything(f, "deleted"))
		rest.expectNothingLeft(ctx, f, "while-running")
		// The pod leaves the API at once; the kubelet's watch brings it the
		// deletion before the next pod.
		expectDeleted(ctx, f, d.Pod, ptr.To[int64](0))
		expectAdmitted(ctx, f, rest.everything(f, "after-delete"))
		rest.expectNothingLeft(ctx, f, "one-more")
	})
})

// expectDeleted deletes pod (grace: nil for the pod's own grace period)
// and waits (up to the ObjectState bound) until it has left the API.
func expectDeleted(ctx context.Context, f *harness.Framework, pod *corev1.Pod, grace *int64) {
	err := f.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: grace,
		Preconditions: &metav1.Preconditions{UID: &pod.UID}})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Eventually(ctx, func(ctx context.Context) error {
		cur, err := nodedecision.Current(ctx, f, pod)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		case cur.UID != pod.UID:
			return nil
		}
		return fmt.Errorf("pod %s is still there (phase %s, deletionTimestamp %v)", pod.Name, cur.Status.Phase, cur.DeletionTimestamp)
	}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
}

// expectAdmittedOnceReleased creates pods asking everything rest has left,
// one after another, until the node admits one (up to the ObjectState
// bound); the rejected ones stay, and hold nothing. It records how long
// that took.
func expectAdmittedOnceReleased(ctx context.Context, f *harness.Framework, rest theRest, prefix string) {
	start := time.Now()
	attempt := 0
	var last string
	gomega.Eventually(ctx, func(ctx context.Context) error {
		attempt++
		d, err := nodedecision.Decide(ctx, f, rest.everything(f, fmt.Sprintf("%s-%d", prefix, attempt)))
		if err != nil {
			return err
		}
		if !d.Admitted {
			last = d.Pod.Status.Reason + ": " + d.Pod.Status.Message
			return errors.New("rejected: " + last)
		}
		return nil
	}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed(),
		"node %s never admitted a pod asking what the finished pod held (last rejection %s)", rest.node, last)
	ginkgo.GinkgoWriter.Printf("admitted at attempt %d, %s after the pod was reported finished\n", attempt, time.Since(start))
	f.Record(results.Measurement{Name: "release-after-finish", Value: ms(time.Since(start)), Unit: "ms",
		Labels: map[string]string{"attempts": fmt.Sprint(attempt)}})
}
