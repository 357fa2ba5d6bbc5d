package nodeadmit

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsTaintToleration = spec.Spec{
	ShortName: "KubeletRejectsTaintToleration",
	Suite:     "nodeadmit",
	Description: "A pod bound to a node with a NoExecute taint it does not tolerate is rejected by the kubelet with Reason " +
		"TaintToleration, while a pod that tolerates the taint is admitted.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: taintsTheNode,
}

// The kubelet only checks NoExecute taints at admission.
const taintKey = "admission-conformance.io/no-execute"

var _ = describe(rejectsTaintToleration, func(f *harness.Framework) {
	ginkgo.It("fails an untolerating pod with Reason TaintToleration", func(ctx ginkgo.SpecContext) {
		node := hollowNode(ctx, f, taintingEvictsOthers).Name
		taint := corev1.Taint{Key: taintKey, Value: f.Namespace, Effect: corev1.TaintEffectNoExecute}
		gomega.Expect(setTaint(ctx, f, node, &taint)).To(gomega.Succeed())
		ginkgo.DeferCleanup(setTaint, f, node, (*corev1.Taint)(nil))

		control := nodedecision.Pod(f, node, "control")
		control.Spec.Tolerations = []corev1.Toleration{{Key: taintKey, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
		expectControlAdmitted(ctx, f, control)

		// The kubelet reads taints from its own cache of the node, which
		// may trail the taint by a moment: a subject admitted meanwhile is
		// removed and another one sent.
		var rejected nodes.Decision
		attempt := 0
		gomega.Eventually(ctx, func(ctx context.Context) (bool, error) {
			attempt++
			pod := subject(f, node, fmt.Sprintf("subject-%d", attempt))
			// A graceful deletion, so the pod is still there when the
			// kubelet publishes its decision (see below).
			pod.Spec.TerminationGracePeriodSeconds = nil
			d, err := nodedecision.Decide(ctx, f, pod)
			if err != nil {
				return false, err
			}
			// A kubelet rejection always carries a Reason. A pod failed
			// without one was admitted and then evicted by the control
			// plane's taint eviction controller: not a rejection either.
			if d.Admitted || d.Pod.Status.Reason == "" {
				err := f.Client.CoreV1().Pods(f.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})
				if apierrors.IsNotFound(err) {
					err = nil
				}
				return false, err
			}
			rejected = d
			return true, nil
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.BeTrue(),
			func() string {
				return fmt.Sprintf("node %s admitted all %d pods that do not tolerate its taint", node, attempt)
			})

		// The control plane's taint eviction controller deletes every pod
		// on the node that does not tolerate the NoExecute taint, whatever
		// its phase, so "not deleted" cannot be checked here; it is checked
		// by every other rejection case.
		expectRejected(ctx, f, rejected, rejection{reason: "TaintToleration", mayBeDeleted: true})
	})
})

// setTaint puts taint on node in place of any taint with taintKey, or
// removes that taint when taint is nil.
func setTaint(ctx context.Context, f *harness.Framework, node string, taint *corev1.Taint) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := f.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var taints []corev1.Taint
		for _, t := range n.Spec.Taints {
			if t.Key != taintKey {
				taints = append(taints, t)
			}
		}
		if taint != nil {
			taints = append(taints, *taint)
		}
		n.Spec.Taints = taints
		_, err = f.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	})
}
