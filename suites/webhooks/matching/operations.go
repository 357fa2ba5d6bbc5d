package matching

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var matchingOperations = spec.Spec{
	ShortName:   "MatchingOperations",
	Suite:       "webhooks",
	Description: "A webhook is called for the operations its rules list (CREATE, UPDATE, DELETE, CONNECT or *) and for no other.",
	Features:    []features.Name{features.ValidatingWebhook},
	Profile:     spec.Core,
	Seed:        "002 RuleWithVerbs: Verbs is the verbs the admission hook cares about - CREATE, UPDATE, or * for all verbs",
	Isolation: spec.Isolation{Shares: []string{spec.NodesState},
		Reason: "creates a pod without a scheduling gate, which the scheduler binds to one of the harness's nodes"},
}

var _ = harness.Describe(matchingOperations, func(f *harness.Framework) {
	ginkgo.It("CREATE, UPDATE, DELETE and * on configmaps; CONNECT on pods/exec", func(ctx ginkgo.SpecContext) {
		reg, err := f.RegisterValidating(ctx, "operations",
			harness.Hook{Name: "create", Behaviour: speckit.Allow(), Rules: speckit.OperationRule("configmaps", admissionregistrationv1.Create)},
			harness.Hook{Name: "update", Behaviour: speckit.Allow(), Rules: speckit.OperationRule("configmaps", admissionregistrationv1.Update)},
			harness.Hook{Name: "delete", Behaviour: speckit.Allow(), Rules: speckit.OperationRule("configmaps", admissionregistrationv1.Delete)},
			harness.Hook{Name: "all", Behaviour: speckit.Allow(), Rules: speckit.OperationRule("configmaps", admissionregistrationv1.OperationAll)},
			harness.Hook{Name: "connect", Behaviour: speckit.Allow(), Rules: speckit.OperationRule("pods/exec", admissionregistrationv1.Connect)},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		cms := f.Client.CoreV1().ConfigMaps(f.Namespace)
		cm := speckit.Subject(f.Namespace)
		created, err := cms.Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		created.Data["updated"] = "yes"
		_, err = cms.Update(ctx, created, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(cms.Delete(ctx, cm.Name, metav1.DeleteOptions{})).To(gomega.Succeed())

		pod, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, speckit.PendingPod(f.Namespace, "exec-target"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// Admission runs before the apiserver looks for a kubelet, so the
		// CONNECT reaches the webhook even though the pod never runs; the
		// request itself then fails, which is not what is checked here.
		_ = f.Client.CoreV1().RESTClient().Post().Namespace(f.Namespace).Resource("pods").Name(pod.Name).
			SubResource("exec").Param("command", "true").Param("stdout", "true").Do(ctx).Error()

		requests := map[string]speckit.Request{
			"create":  {Operation: "CREATE", Resource: "configmaps", Namespace: f.Namespace, Name: cm.Name},
			"update":  {Operation: "UPDATE", Resource: "configmaps", Namespace: f.Namespace, Name: cm.Name},
			"delete":  {Operation: "DELETE", Resource: "configmaps", Namespace: f.Namespace, Name: cm.Name},
			"connect": {Operation: "CONNECT", Resource: "pods", Namespace: f.Namespace, Name: pod.Name, Subresource: "exec"},
		}
		speckit.ExpectReach(f, reg, requests, map[string][]string{
			"create":  {"create"},
			"update":  {"update"},
			"delete":  {"delete"},
			"all":     {"create", "update", "delete"},
			"connect": {"connect"},
		})
	})
})
