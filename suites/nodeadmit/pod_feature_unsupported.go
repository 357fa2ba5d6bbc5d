package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsPodFeatureUnsupported = spec.Spec{
	ShortName: "KubeletRejectsPodFeatureUnsupported",
	Suite:     "nodeadmit",
	Description: "A pod needing a node feature its node's kubelet does not declare (a RestartAllContainers restart " +
		"rule, feature RestartAllContainersOnContainerExits), bound by spec.nodeName past the scheduler, is rejected " +
		"by the kubelet with Reason PodFeatureUnsupported and a message naming the feature.",
	Features:  declaredFeaturesFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: bindsPodsToANode,
}

var _ = describe(rejectsPodFeatureUnsupported, func(f *harness.Framework) {
	ginkgo.It("fails a pod with a RestartAllContainers rule with Reason PodFeatureUnsupported and leaves it in place", func(ctx ginkgo.SpecContext) {
		node, _ := nodeLacking(ctx, f, restartAllContainersFeature, true)
		pod := subject(f, node, "subject")
		pod.Spec.Containers[0].RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
		pod.Spec.Containers[0].RestartPolicyRules = []corev1.ContainerRestartRule{{
			Action:    corev1.ContainerRestartRuleActionRestartAllContainers,
			ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
		}}
		// An apiserver with the restart rules' gates off drops the rules
		// (the pod would then need nothing of the node): ask it first.
		dry, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		if len(dry.Spec.Containers[0].RestartPolicyRules) == 0 {
			ginkgo.Skip(notSupported("the apiserver drops container restartPolicyRules (gates ContainerRestartRules, RestartAllContainersOnContainerExits)"))
		}
		expectNodeRejects(ctx, f, node, pod, rejection{
			reason:  "PodFeatureUnsupported",
			message: "Pod requires node features that are not available: " + restartAllContainersFeature,
		})
	})
})
