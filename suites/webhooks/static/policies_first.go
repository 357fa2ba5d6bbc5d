package static

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var staticValidatingPolicyFirst = spec.Spec{
	ShortName: "StaticValidatingPolicyFirst",
	Suite:     "webhooks",
	Description: "Static ValidatingAdmissionPolicies are evaluated before API-registered ones: when both deny a request, " +
		"the denial names the static policy, even when the API policy's name sorts first.",
	Features:  []features.Name{features.StaticAdmissionManifests, features.ValidatingAdmissionPolicy},
	Profile:   spec.Extended,
	Seed:      staticSeed,
	Isolation: staticShares,
}

var _ = harness.Describe(staticValidatingPolicyFirst, func(f *harness.Framework) {
	ginkgo.It("a request both deny is denied by the static policy", func(ctx ginkgo.SpecContext) {
		obj := speckit.Subject(f.Namespace)
		apiMessage, staticMessage := "API policy of "+f.Namespace, "static policy of "+f.Namespace
		// The API policy's name ("<namespace>-a-api") sorts before the
		// static one's ("first.<namespace>.static.k8s.io" starts after 'a'):
		// name order alone would evaluate it first.
		constraints := speckit.PolicyConfigMapRules()
		constraints.ObjectSelector = speckit.Selecting(obj)
		err := speckit.VAPWith(ctx, f, "a-api", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: constraints,
			Validations:      []admissionregistrationv1.Validation{{Expression: "false", Message: apiMessage}},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		marker := "static-vap-first-" + f.Namespace
		objs := staticDenyPolicy(f, "first", obj.Labels[speckit.ProbeLabel], staticMessage)
		objs[0].(*admissionregistrationv1.ValidatingAdmissionPolicy).Spec.MatchConstraints.ObjectSelector = &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: speckit.ProbeLabel, Operator: metav1.LabelSelectorOpIn,
				Values: []string{obj.Labels[speckit.ProbeLabel], marker}}}}
		writeStatic(f, cluster.StaticValidatingPolicy, "first", objs...)
		// Enforced once a probe only the static policy selects is denied.
		awaitStatic(ctx, f, deniedProbe(f, marker, staticMessage))

		staticName := objs[0].(*admissionregistrationv1.ValidatingAdmissionPolicy).Name
		for _, rc := range f.Replicas {
			_, err := dryRunCreateObject(ctx, rc, obj)
			gomega.Expect(err).To(gomega.HaveOccurred(), "both policies deny the object")
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(staticMessage),
				"the static policy is evaluated first, so its denial is the one returned")
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(fmt.Sprintf("ValidatingAdmissionPolicy '%s'", staticName)))
			gomega.Expect(err.Error()).NotTo(gomega.ContainSubstring(apiMessage))
		}
	})
})

var staticMutatingPolicyFirst = spec.Spec{
	ShortName: "StaticMutatingPolicyFirst",
	Suite:     "webhooks",
	Description: "Static MutatingAdmissionPolicies are applied before API-registered ones, and a static policy's " +
		"mutation is seen by the API policies after it: each appends to one annotation, which ends 'static,api,'.",
	Features:  []features.Name{features.StaticAdmissionManifests, features.MutatingAdmissionPolicy},
	Profile:   spec.Extended,
	Seed:      staticSeed,
	Isolation: staticShares,
}

// trailAnnotation is the annotation the policies of StaticMutatingPolicyFirst
// append their names to.
const trailAnnotation = "admission-conformance.io/trail"

// appendToTrail is a speckit.ApplyConfiguration mutation appending word to trailAnnotation.
func appendToTrail(word string) mutatingpolicy.Mutation {
	return speckit.ApplyConfiguration(fmt.Sprintf(`Object{metadata: Object.metadata{annotations: {%[1]q: `+
		`(has(object.metadata.annotations) && %[1]q in object.metadata.annotations ? object.metadata.annotations[%[1]q] : "") + %[2]q}}}`,
		trailAnnotation, word+","))
}

var _ = harness.Describe(staticMutatingPolicyFirst, func(f *harness.Framework) {
	ginkgo.It("the static policy's mutation comes first and the API policy sees it", func(ctx ginkgo.SpecContext) {
		obj := speckit.Subject(f.Namespace)
		constraints := speckit.PolicyConfigMapRules()
		constraints.ObjectSelector = speckit.Selecting(obj)
		err := speckit.MAPWith(ctx, f, "a-api", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: constraints,
			Mutations:        []mutatingpolicy.Mutation{appendToTrail("api")},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		marker := "static-map-first-" + f.Namespace
		name := staticName(f, "first")
		policy := mutatingpolicy.MutatingAdmissionPolicy{
			TypeMeta:   metav1.TypeMeta{APIVersion: mutatingpolicy.GroupVersion.String(), Kind: "MutatingAdmissionPolicy"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: mutatingpolicy.MutatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail), ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
				MatchConstraints: &admissionregistrationv1.MatchResources{
					NamespaceSelector: namespaceSelector(f),
					ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: speckit.ProbeLabel,
						Operator: metav1.LabelSelectorOpIn, Values: []string{obj.Labels[speckit.ProbeLabel], marker}}}},
					ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: speckit.ConfigMapRules()[0]}},
				},
				Mutations: []mutatingpolicy.Mutation{appendToTrail("static")},
			},
		}
		binding := mutatingpolicy.MutatingAdmissionPolicyBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: mutatingpolicy.GroupVersion.String(), Kind: "MutatingAdmissionPolicyBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "first-binding")},
			Spec:       mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: name},
		}
		writeStaticRaw(f, cluster.StaticMutatingPolicy, "first", policy, binding)
		// Enforced once a probe only the static policy selects carries its
		// mark.
		awaitStatic(ctx, f, func(ctx context.Context, rc *rest.Config) (bool, error) {
			cm, err := speckit.DryRunCreate(ctx, rc, f.Namespace, marker)
			if err != nil {
				return false, err
			}
			return cm.Annotations[trailAnnotation] == "static,", nil
		})

		for _, rc := range f.Replicas {
			created, err := dryRunCreateObject(ctx, rc, obj)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(created.Annotations).To(gomega.HaveKeyWithValue(trailAnnotation, "static,api,"),
				"the static policy applies first and the API policy sees its mutation")
		}
	})
})

// writeStaticRaw writes objects that the client-go scheme does not know
// (framework/mutatingpolicy types, their TypeMeta set) as one multi-document
// file, removed after the case.
func writeStaticRaw(f *harness.Framework, plugin cluster.StaticPlugin, short string, objs ...any) {
	var data []byte
	for _, o := range objs {
		doc, err := yaml.Marshal(o)
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		data = append(append(data, "---\n"...), doc...)
	}
	dirs := staticDirs(f)
	name := staticFile(f, short)
	gomega.ExpectWithOffset(1, staticmanifest.WriteRaw(dirs, plugin, name, data)).To(gomega.Succeed())
	ginkgo.DeferCleanup(staticmanifest.Remove, dirs, plugin, name)
}
