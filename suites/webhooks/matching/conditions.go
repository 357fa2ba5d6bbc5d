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

var matchingConditions = spec.Spec{
	ShortName:   "MatchingConditions",
	Suite:       "webhooks",
	Description: "A webhook with CEL matchConditions is called only for requests for which every condition is true.",
	Features:    []features.Name{features.ValidatingWebhook, features.WebhookMatchConditions},
	Profile:     spec.Core,
	Seed:        "002 Future work: a more flexible way to say which requests a webhook cares about (matchConditions)",
}

var _ = harness.Describe(matchingConditions, func(f *harness.Framework) {
	ginkgo.It("all conditions must hold", func(ctx ginkgo.SpecContext) {
		reg, err := f.RegisterValidating(ctx, "conditions", harness.Hook{
			Name: "conditional", Behaviour: speckit.Allow(),
			MatchConditions: []admissionregistrationv1.MatchCondition{
				{Name: "name-prefix", Expression: `object.metadata.name.startsWith("match-")`},
				{Name: "has-data", Expression: `has(object.data) && "wanted" in object.data`},
			},
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		create := func(name string, data map[string]string) speckit.Request {
			cm := speckit.Subject(f.Namespace)
			cm.Name, cm.Data = name, data
			_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			return speckit.Request{Operation: "CREATE", Resource: "configmaps", Namespace: f.Namespace, Name: name}
		}
		speckit.ExpectReach(f, reg, map[string]speckit.Request{
			"both":          create("match-both", map[string]string{"wanted": "1"}),
			"name-only":     create("match-name-only", map[string]string{"other": "1"}),
			"data-only":     create("other-data-only", map[string]string{"wanted": "1"}),
			"neither-holds": create("other-neither", nil),
		}, map[string][]string{
			"conditional": {"both"},
		})
	})
})
