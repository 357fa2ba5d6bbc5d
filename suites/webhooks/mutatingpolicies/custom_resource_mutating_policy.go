package mutatingpolicies

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var customResourceMutatingPolicy = spec.Spec{
	ShortName: "CustomResourceMutatingPolicy",
	Suite:     "webhooks",
	Description: "A MutatingAdmissionPolicy's applyConfiguration merges into a custom resource by its CRD's schema: an " +
		"item added to a map list (x-kubernetes-list-type map) joins the stored items by key, and a mutation setting an " +
		"atomic list (x-kubernetes-list-type atomic) is refused, so failurePolicy Fail rejects the request naming the field, " +
		"a scalar set in a field of no declared type (x-kubernetes-preserve-unknown-fields) is merged, and a JSONPatch " +
		"replaces and adds fields of the custom resource.",
	Features: []features.Name{features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed: "KEP-3962 mutating admission policies: ApplyConfiguration uses structured merge diff; mutations may not set " +
		"atomic structs, maps or lists, to avoid accidental removal of values",
}

// schemaNotPublished is the apiserver's answer while a new CRD's schema has
// not reached the mutating policies' type converter.
const schemaNotPublished = "There can be a delay between when CustomResourceDefinitions are created and when they are available"

var _ = harness.Describe(customResourceMutatingPolicy, func(f *harness.Framework) {
	ginkgo.It("an item added to a map list joins the stored ones; a mutation of an atomic list is refused", func(ctx ginkgo.SpecContext) {
		crd := speckit.WidgetCRD(f)
		gomega.Expect(speckit.CreateCRD(ctx, f, crd)).To(gomega.Succeed())
		constraints := func(value string) *admissionregistrationv1.MatchResources {
			return &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": f.Namespace}},
				ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}},
				ResourceRules:     []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: speckit.WidgetRules(crd, "v1")[0]}},
			}
		}
		gomega.Expect(speckit.MAPAndBinding(ctx, f, "map-list", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), MatchConstraints: constraints("map-list"),
			Mutations: []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{spec: Object.spec{items: [Object.spec.items{name: "added", value: "by the policy"}]}}`)},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		gomega.Expect(speckit.MAPAndBinding(ctx, f, "untyped", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), MatchConstraints: constraints("untyped"),
			Mutations: []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{spec: Object.spec{free: "set by the policy"}}`)},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		// A JSONPatch applies to the custom resource's JSON as it is.
		gomega.Expect(speckit.MAPAndBinding(ctx, f, "json-patch", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), MatchConstraints: constraints("json-patch"),
			Mutations: []mutatingpolicy.Mutation{speckit.JSONPatch(`[JSONPatch{op: "replace", path: "/spec/color", value: "red"}, JSONPatch{op: "add", path: "/spec/size", value: 3}]`)},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())
		gomega.Expect(speckit.MAPWith(ctx, f, "atomic-list", mutatingpolicy.MutatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), MatchConstraints: constraints("atomic-list"),
			Mutations: []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{spec: Object.spec{tags: ["set by the policy"]}}`)},
		}, mutatingpolicy.MutatingAdmissionPolicyBindingSpec{})).To(gomega.Succeed())

		res := speckit.Widgets(f, crd, "v1")
		merged := speckit.Widget(f, crd, "v1", "map-list", map[string]any{"items": []any{map[string]any{"name": "kept", "value": "by the client"}}})
		merged.SetLabels(map[string]string{speckit.ProbeLabel: "map-list"})
		// The policies type the custom resource by its CRD's published
		// schema, which follows the CRD by a moment: the apiserver says so,
		// and that answer alone is waited out.
		var created *unstructured.Unstructured
		gomega.Eventually(ctx, func(ctx context.Context) error {
			var err error
			created, err = res.Create(ctx, merged, metav1.CreateOptions{})
			if err != nil && !strings.Contains(err.Error(), schemaNotPublished) {
				return gomega.StopTrying("create").Wrap(err)
			}
			return err
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
		gomega.Expect(created.Object["spec"]).To(gomega.Equal(map[string]any{"items": []any{
			map[string]any{"name": "kept", "value": "by the client"},
			map[string]any{"name": "added", "value": "by the policy"},
		}}), "the policy's item joins the client's by key (a map list merges, it is not replaced)")

		// A field of no declared type is neither an atomic map nor a list:
		// a scalar the policy sets there is merged like any other value.
		untyped := speckit.Widget(f, crd, "v1", "untyped", map[string]any{"color": "blue"})
		untyped.SetLabels(map[string]string{speckit.ProbeLabel: "untyped"})
		created, err := res.Create(ctx, untyped, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a scalar set in a field of no declared type must be merged")
		gomega.Expect(created.Object["spec"]).To(gomega.Equal(map[string]any{"color": "blue", "free": "set by the policy"}),
			"the policy's scalar joins the client's fields")

		patched := speckit.Widget(f, crd, "v1", "json-patch", map[string]any{"color": "blue"})
		patched.SetLabels(map[string]string{speckit.ProbeLabel: "json-patch"})
		created, err = res.Create(ctx, patched, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a JSONPatch on a custom resource must apply")
		gomega.Expect(created.Object["spec"]).To(gomega.Equal(map[string]any{"color": "red", "size": int64(3)}),
			"the patch replaces the client's color and adds a size")

		atomic := speckit.Widget(f, crd, "v1", "atomic-list", map[string]any{"tags": []any{"by the client"}})
		atomic.SetLabels(map[string]string{speckit.ProbeLabel: "atomic-list"})
		_, err = res.Create(ctx, atomic, metav1.CreateOptions{})
		gomega.Expect(err).To(gomega.HaveOccurred(), "a mutation of an atomic list must be refused, and failurePolicy Fail rejects")
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("may not mutate atomic arrays, maps or structs: .spec.tags"),
			fmt.Sprintf("the rejection names the atomic field (got %v)", err))
	})
})
