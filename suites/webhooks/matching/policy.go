package matching

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var matchingPolicy = spec.Spec{
	ShortName: "MatchingPolicyExactAndEquivalent",
	Suite:     "webhooks",
	Description: "A rule on autoscaling/v1 HorizontalPodAutoscalers matches a request made through autoscaling/v2 " +
		"only with matchPolicy Equivalent, which sends the object converted to v1 and says the request was v2.",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "002 Rule: it is recommended to make sure that all the tuple expansions are valid (versions of one resource)",
}

var _ = harness.Describe(matchingPolicy, func(f *harness.Framework) {
	ginkgo.It("Exact misses the other version, Equivalent converts", func(ctx ginkgo.SpecContext) {
		v1Only := []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{"autoscaling"}, APIVersions: []string{"v1"},
				Resources: []string{"horizontalpodautoscalers"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
		}}
		reg, err := f.RegisterValidating(ctx, "match-policy",
			harness.Hook{Name: "exact", Behaviour: speckit.Allow(), Rules: v1Only, MatchPolicy: ptr.To(admissionregistrationv1.Exact)},
			harness.Hook{Name: "equivalent", Behaviour: speckit.Allow(), Rules: v1Only, MatchPolicy: ptr.To(admissionregistrationv1.Equivalent)},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		target := autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "none"}
		_, err = f.Client.AutoscalingV1().HorizontalPodAutoscalers(f.Namespace).Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: "via-v1"},
			Spec:       autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MaxReplicas: 2},
		}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = f.Client.AutoscalingV2().HorizontalPodAutoscalers(f.Namespace).Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
			ObjectMeta: metav1.ObjectMeta{Name: "via-v2"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 2,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: target.APIVersion, Kind: target.Kind, Name: target.Name}},
		}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		speckit.ExpectReach(f, reg, map[string]speckit.Request{
			"v1": {Operation: "CREATE", Resource: "horizontalpodautoscalers", Namespace: f.Namespace, Name: "via-v1"},
			"v2": {Operation: "CREATE", Resource: "horizontalpodautoscalers", Namespace: f.Namespace, Name: "via-v2"},
		}, map[string][]string{
			"exact":      {"v1"},
			"equivalent": {"v1", "v2"},
		})
		converted := speckit.CallsTo(f, reg.Hooks["equivalent"], f.Namespace, "via-v2")
		gomega.Expect(converted).To(gomega.HaveLen(1))
		gomega.Expect(converted[0].Kind.Version).To(gomega.Equal("v1"), "the object is sent in the version the rule names")
		gomega.Expect(converted[0].RequestKind).NotTo(gomega.BeNil())
		gomega.Expect(converted[0].RequestKind.Version).To(gomega.Equal("v2"), "requestKind says how the request was made")
	})
})
