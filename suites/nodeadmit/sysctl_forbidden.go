package nodeadmit

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/nodedecision"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var rejectsSysctlForbidden = spec.Spec{
	ShortName: "KubeletRejectsSysctlForbidden",
	Suite:     "nodeadmit",
	Description: "A pod bound to a node that sets an unsafe sysctl the node does not allow is rejected by the kubelet with " +
		"Reason SysctlForbidden and a message naming it, while a pod setting safe sysctls is admitted.",
	Features:  builtInFeatures,
	Profile:   spec.Extended,
	Seed:      seedBuiltIn,
	Isolation: bindsPodsToANode,
}

// unsafeSysctl is namespaced (so the API accepts it) but not in the
// kubelet's safe set, and hollow nodes allow no unsafe ones.
const unsafeSysctl = "kernel.msgmax"

var _ = describe(rejectsSysctlForbidden, func(f *harness.Framework) {
	ginkgo.It("fails the pod with Reason SysctlForbidden and leaves it in place", func(ctx ginkgo.SpecContext) {
		// Pod Security must let the pod through to the node: unsafe sysctls
		// are only allowed at the privileged level.
		_, err := f.Client.CoreV1().Namespaces().Patch(ctx, f.Namespace, types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`), metav1.PatchOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		node := builtInNode(f)
		// The control sets safe sysctls (the kubelet's default allowlist, one
		// of the IPC and one of the network namespace), which it admits.
		control := nodedecision.Pod(f, node, "control")
		control.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{
			{Name: "kernel.shm_rmid_forced", Value: "1"}, {Name: "net.ipv4.ip_local_port_range", Value: "32768 60999"}}}
		pod := subject(f, node, "subject")
		pod.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: unsafeSysctl, Value: "65536"}}}
		expectNodeRejectsAfter(ctx, f, control, pod, rejection{reason: "SysctlForbidden",
			message: `forbidden sysctl: "` + unsafeSysctl + `" not allowlisted`})
	})
})
