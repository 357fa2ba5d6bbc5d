package nodeadmit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/nodes"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// rejectedPrefix starts the status message of every rejected pod (seed 004:
// rejected pods keep the reason; upstream's kubelet words it so).
const rejectedPrefix = "Pod was rejected: "

// The seed clauses the specs check.
const (
	seedBuiltIn = "004 KEP-2823 Summary: the kubelet rejects a pod whose requirements the node or runtime cannot meet; " +
		"rejected pods enter a terminated state, are not deleted, and keep a specific Reason"
	seedPlugins = "004 KEP-2823 Design: node-local admission plugins (shell, grpc, socket) get the encoded pod and return " +
		"AdmitResult{Admit, Reason, Message}"
	seedFailClosed = "004 KEP-2823 Implementation detail: if a plugin does not respond or crashes, the kubelet fails closed " +
		"and the pod is not accepted"
	seedParallel = "004 KEP-2823 Implementation detail: plugins do not mutate the pod and can be invoked in parallel"
)

// builtInFeatures and pluginFeatures are what the two kinds of spec need.
var (
	builtInFeatures = []features.Name{features.NodeAdmission}
	pluginFeatures  = []features.Name{features.NodeAdmission, features.NodeAdmissionPlugins}
)

// subjectLabel marks the pod a case is about, so fake plugins told to
// reject, crash or hang act on it and let control pods through.
var subjectLabel = map[string]string{"admission-conformance.io/subject": "true"}

// subject is the pod a case expects its node to decide on.
func subject(f *harness.Framework, node, name string) *corev1.Pod {
	p := nodedecision.Pod(f, node, name)
	for k, v := range subjectLabel {
		p.Labels[k] = v
	}
	return p
}

// expectControlAdmitted shows that node runs an ordinary pod now, so a
// rejection that follows is about the subject, not a broken node.
func expectControlAdmitted(ctx context.Context, f *harness.Framework, control *corev1.Pod) {
	d, err := nodedecision.Decide(ctx, f, control)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	gomega.Expect(d.Admitted).To(gomega.BeTrue(), "control pod %s was rejected (%s: %s): node %s does not run ordinary pods",
		control.Name, d.Pod.Status.Reason, d.Pod.Status.Message, control.Spec.NodeName)
}

// rejection is what a case expects of a rejected pod.
type rejection struct {
	reason string
	// message, if set, is the exact status message after the prefix.
	message string
	// messageContains, if set, must appear in the status message.
	messageContains string
	// bound and lower bound the rejection latency (bound defaults to the
	// NodeAdmission bound, plus control).
	bound, lower time.Duration
	// control is what asking the node's plugins cost just before, the
	// control pod's latency (installWithControl): a shell plugin is a
	// process of this large binary, a second or more on a loaded 2-core
	// machine (a rejection by all three types took 2.047 s under stress-ng,
	// over a fixed 2 s), so a plugin's rejection is bounded by NodeAdmission
	// beyond it; a host that stalls still fails.
	control time.Duration
	// mayBeDeleted skips the "not deleted" check, for the one case where the
	// control plane rightly deletes the pod (see taint_toleration.go).
	mayBeDeleted bool
}

// expectRejected checks the seed's handling of a rejected pod: phase
// Failed, the exact Reason, a message that says it was rejected, one
// Warning event with that Reason from the node's kubelet, the pod left in
// place; and records the rejection latency.
func expectRejected(ctx context.Context, f *harness.Framework, d nodes.Decision, want rejection) {
	pod := d.Pod
	gomega.Expect(d.Admitted).To(gomega.BeFalse(), "node %s admitted pod %s; want a rejection with reason %s",
		pod.Spec.NodeName, pod.Name, want.reason)
	bound := want.bound
	if bound == 0 {
		bound = f.Bounds.NodeAdmission.Duration + want.control
	}
	m := results.Measurement{Name: "rejection-latency", Value: ms(d.Latency), Unit: "ms", Bound: ptr.To(ms(bound)),
		Labels: map[string]string{"reason": want.reason}}
	if want.control > 0 {
		m.Labels["controlLatency"] = want.control.String()
	}
	if want.lower > 0 {
		m.Lower = ptr.To(ms(want.lower))
	}
	f.Record(m)

	gomega.Expect(pod.Status.Phase).To(gomega.Equal(corev1.PodFailed))
	gomega.Expect(pod.Status.Reason).To(gomega.Equal(want.reason), "status.reason (message: %s)", pod.Status.Message)
	gomega.Expect(pod.Status.Message).To(gomega.HavePrefix(rejectedPrefix))
	if want.message != "" {
		gomega.Expect(strings.TrimPrefix(pod.Status.Message, rejectedPrefix)).To(gomega.Equal(want.message))
	}
	if want.messageContains != "" {
		gomega.Expect(pod.Status.Message).To(gomega.ContainSubstring(want.messageContains))
	}
	gomega.Expect(m.Within()).To(gomega.BeTrue(), "rejection took %s, outside [%s, %s] (control pod: %s)", d.Latency, want.lower, bound, want.control)

	events, err := nodedecision.EventsAbout(ctx, f, pod, want.reason)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	var warnings []corev1.Event
	for _, e := range events {
		if e.Type == corev1.EventTypeWarning && e.Reason == want.reason {
			warnings = append(warnings, e)
		}
	}
	gomega.Expect(warnings).To(gomega.HaveLen(1), "Warning events with reason %s about the pod", want.reason)
	gomega.Expect(warnings[0].Count).To(gomega.BeNumerically("<=", 1), "the rejection event was recorded more than once")
	gomega.Expect(warnings[0].Source.Component).To(gomega.Equal(nodedecision.KubeletComponent))
	gomega.Expect(warnings[0].Source.Host).To(gomega.Equal(pod.Spec.NodeName), "the event comes from the pod's node")

	if want.mayBeDeleted {
		return
	}
	// A rejected pod stays, so an operator can act on its Reason; watch it a
	// little while to catch a node that deletes it after the fact.
	gomega.Consistently(ctx, func(ctx context.Context) error {
		cur, err := nodedecision.Current(ctx, f, pod)
		switch {
		case apierrors.IsNotFound(err):
			return errors.New("the rejected pod was deleted")
		case err != nil:
			return err
		case cur.DeletionTimestamp != nil:
			return errors.New("the rejected pod is being deleted")
		case cur.Status.Phase != corev1.PodFailed || cur.Status.Reason != want.reason:
			return fmt.Errorf("the rejected pod's status changed to %s/%s", cur.Status.Phase, cur.Status.Reason)
		}
		return nil
	}).WithTimeout(f.Bounds.TimingSlack.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
}

// expectNodeRejects runs the common built-in case: a control pod is
// admitted, then the subject is rejected as want says.
func expectNodeRejects(ctx context.Context, f *harness.Framework, node string, subject *corev1.Pod, want rejection) nodes.Decision {
	return expectNodeRejectsAfter(ctx, f, nodedecision.Pod(f, node, "control"), subject, want)
}

// expectNodeRejectsAfter is expectNodeRejects with a control pod of the
// case's own: one that uses the checked field the way the node must admit
// (the positive side of the same check).
func expectNodeRejectsAfter(ctx context.Context, f *harness.Framework, control, subject *corev1.Pod, want rejection) nodes.Decision {
	expectControlAdmitted(ctx, f, control)
	d, err := nodedecision.Decide(ctx, f, subject)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	expectRejected(ctx, f, d, want)
	return d
}

// builtInNode is the node built-in rejection cases use.
func builtInNode(f *harness.Framework) string {
	node, err := nodedecision.NodeWith(f, features.NodeAdmission)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return node
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// notSupported is the skip message of a case the cluster cannot show.
func notSupported(why string) string { return results.NotSupportedPrefix + why }
