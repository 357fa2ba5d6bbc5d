package policycel

import (
	"context"
	"regexp"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// illTyped is ill-typed against every kind these cases match: a ConfigMap's
// or Secret's data value is no int, the other kinds have no data.
const illTyped = "object.data.k == 1"

// checkedKinds are the kinds a type-checking warning lists, in its order
// (one "<group>/<version>, Kind=<kind>: <issues>" line per kind).
var checkedKinds = regexp.MustCompile(`(?m)^([a-z0-9.]*/v[0-9a-z]+), Kind=(\w+): `)

func warnedKinds(warning string) []string {
	var out []string
	for _, m := range checkedKinds.FindAllStringSubmatch(warning, -1) {
		out = append(out, m[1]+" "+m[2])
	}
	return out
}

// typeCheckedKinds creates a policy with one ill-typed validation matching
// rule, waits until the controller manager type-checked it, and returns the
// kinds its warning names (none if it has none).
func typeCheckedKinds(ctx context.Context, f *harness.Framework, suffix string, rule admissionregistrationv1.Rule) []string {
	name := speckit.PolicyName(f, suffix)
	gomega.ExpectWithOffset(1, speckit.CreateVAP(ctx, f, &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: rule},
			}}},
			Validations: []admissionregistrationv1.Validation{{Expression: illTyped}},
		}})).To(gomega.Succeed())
	var kinds []string
	gomega.EventuallyWithOffset(1, ctx, func(g gomega.Gomega) {
		p, err := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(gomega.HaveOccurred())
		g.Expect(p.Status.ObservedGeneration).To(gomega.Equal(p.Generation), "status.observedGeneration of %s must reach its generation", name)
		kinds = nil
		if p.Status.TypeChecking != nil {
			for _, w := range p.Status.TypeChecking.ExpressionWarnings {
				g.Expect(w.FieldRef).To(gomega.Equal("spec.validations[0].expression"), "the only expression is the validation's")
				kinds = warnedKinds(w.Warning)
				g.Expect(kinds).NotTo(gomega.BeEmpty(), "a warning names the kinds it was checked against: %q", w.Warning)
			}
		}
	}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
	return kinds
}

// describeTypeCheckedKinds declares PolicyTypeChecking's cases on which
// kinds a policy is checked against.
func describeTypeCheckedKinds(f *harness.Framework) {
	core := func(resources ...string) admissionregistrationv1.Rule {
		return admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: resources}
	}

	ginkgo.It("checks at most 10 kinds of a rule, the first 10 of its sorted resources, listed by group, version and kind", func(ctx ginkgo.SpecContext) {
		// Eleven resources, each of one kind; sorted, services is the
		// eleventh. (Not events: the core group's rule resolves it to the
		// events.k8s.io Event too.)
		kinds := typeCheckedKinds(ctx, f, "eleven", core("services", "serviceaccounts", "secrets", "resourcequotas", "replicationcontrollers",
			"podtemplates", "pods", "persistentvolumeclaims", "limitranges", "endpoints", "configmaps"))
		gomega.Expect(kinds).To(gomega.Equal([]string{"/v1 ConfigMap", "/v1 Endpoints", "/v1 LimitRange", "/v1 PersistentVolumeClaim", "/v1 Pod",
			"/v1 PodTemplate", "/v1 ReplicationController", "/v1 ResourceQuota", "/v1 Secret", "/v1 ServiceAccount"}),
			"ten kinds, in kind order, without the eleventh resource's (Service)")
	})

	ginkgo.It("lists the kinds of two versions of a group in version order", func(ctx ginkgo.SpecContext) {
		kinds := typeCheckedKinds(ctx, f, "versions", admissionregistrationv1.Rule{
			APIGroups: []string{"autoscaling"}, APIVersions: []string{"v2", "v1"}, Resources: []string{"horizontalpodautoscalers"}})
		gomega.Expect(kinds).To(gomega.Equal([]string{"autoscaling/v1 HorizontalPodAutoscaler", "autoscaling/v2 HorizontalPodAutoscaler"}))
	})

	ginkgo.It("skips resources it cannot resolve and still checks the others", func(ctx ginkgo.SpecContext) {
		kinds := typeCheckedKinds(ctx, f, "unknown", core("aaa-no-such-resources", "configmaps", "zzz-no-such-resources"))
		gomega.Expect(kinds).To(gomega.Equal([]string{"/v1 ConfigMap"}), "the unknown resources are skipped, configmaps between them is checked")
	})

	ginkgo.It("checks nothing for a rule with a wildcard group", func(ctx ginkgo.SpecContext) {
		kinds := typeCheckedKinds(ctx, f, "wildcard", admissionregistrationv1.Rule{
			APIGroups: []string{"*"}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}})
		gomega.Expect(kinds).To(gomega.BeEmpty(), "a wildcard group gives no kind to check against, so no warning")
	})
}
