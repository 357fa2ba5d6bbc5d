package kubecompat_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"

	"github.com/admission-conformance/admission-conformance/internal/kubecompat"
)

// The harness's kubelets (hollow nodes, the kind node image) put a
// KEP-2823 plugin host first in the kubelet's admit chain, written once as
// an AdmitFunc for every Kubernetes minor; the first rejection wins, so the
// kubelet's own handlers never see a pod a plugin rejected.
func ExampleChain() {
	plugins := kubecompat.AdmitFunc(func(_ context.Context, attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
		if attrs.Pod.Labels["acme.example/forbidden"] == "true" {
			return lifecycle.PodAdmitResult{Reason: "AcmeRefused", Message: "acme-gate refused the pod"}
		}
		return lifecycle.PodAdmitResult{Admit: true}
	})
	var asked []string
	kubelet := kubecompat.AdmitFunc(func(_ context.Context, attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult {
		asked = append(asked, attrs.Pod.Name)
		return lifecycle.PodAdmitResult{Admit: true}
	})
	chain := kubecompat.Chain(plugins, kubelet)

	for _, pod := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "plain"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "forbidden", Labels: map[string]string{"acme.example/forbidden": "true"}}},
	} {
		r := kubecompat.Admit(context.Background(), chain, kubecompat.AdmitAttributes(pod, false))
		fmt.Printf("%s: admit=%t reason=%q\n", pod.Name, r.Admit, r.Reason)
	}
	fmt.Println("the kubelet's own handler was asked about", asked)
	// Output:
	// plain: admit=true reason=""
	// forbidden: admit=false reason="AcmeRefused"
	// the kubelet's own handler was asked about [plain]
}
