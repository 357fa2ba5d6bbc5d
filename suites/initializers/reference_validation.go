package initializers

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

var initializerConfigurationValidation = spec.Spec{
	ShortName: "InitializerConfigurationValidation",
	Suite:     "initializers",
	Description: "InitializerConfigurations are validated: '*' must be alone in its list, subresource rules are " +
		"rejected (subresources cannot be initialized), names are fully qualified and unique, timeouts positive.",
	Features: []features.Name{features.ReferenceInitializers},
	Profile:  spec.Reference,
	Seed: "002 Specification: if '*' is present, the length of the slice must be one; Name should be fully " +
		"qualified (deviation: resources with '/' are rejected, since only objects are initialized)",
	Isolation: usesInitializers,
}

var _ = harness.Describe(initializerConfigurationValidation, func(f *harness.Framework) {
	ginkgo.It("rejects malformed configurations and accepts a well-formed one", func(ctx ginkgo.SpecContext) {
		valid := func() v1alpha1.Initializer { return initializer(gate(f, "valid"), v1alpha1.Ignore, 5) }
		withRule := func(groups, versions, resources []string) v1alpha1.Initializer {
			in := valid()
			in.Rules = []v1alpha1.Rule{{APIGroups: groups, APIVersions: versions, Resources: resources}}
			return in
		}
		unqualified := valid()
		unqualified.Name = "no-domain"
		zero := valid()
		zero.TimeoutSeconds = ptr.To[int32](0)
		cases := []struct {
			what string
			in   []v1alpha1.Initializer
			want string
		}{
			{"'*' with another group", []v1alpha1.Initializer{withRule([]string{"*", "apps"}, []string{"v1"}, []string{"pods"})}, "must be the only API group"},
			{"'*' with another version", []v1alpha1.Initializer{withRule([]string{""}, []string{"*", "v1"}, []string{"pods"})}, "must be the only API version"},
			{"'*' with another resource", []v1alpha1.Initializer{withRule([]string{""}, []string{"v1"}, []string{"*", "pods"})}, "must be the only resource"},
			{"a subresource", []v1alpha1.Initializer{withRule([]string{""}, []string{"v1"}, []string{"pods/status"})}, "subresources cannot be initialized"},
			{"all subresources", []v1alpha1.Initializer{withRule([]string{"*"}, []string{"*"}, []string{"*/*"})}, "subresources cannot be initialized"},
			{"an unqualified name", []v1alpha1.Initializer{unqualified}, "no-domain"},
			{"a name twice", []v1alpha1.Initializer{valid(), valid()}, "Duplicate value"},
			{"a zero timeout", []v1alpha1.Initializer{zero}, "timeoutSeconds"},
		}
		dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
		for _, c := range cases {
			_, err := createConfiguration(ctx, f, newConfiguration(f, "invalid", c.in...), dryRun)
			gomega.Expect(apierrors.IsInvalid(err)).To(gomega.BeTrue(), "%s: want 422 Invalid, got %v", c.what, err)
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(c.want), c.what)
		}
		other := withRule([]string{"*"}, []string{"*"}, []string{"*"})
		other.Name = gate(f, "other")
		_, err := createConfiguration(ctx, f, newConfiguration(f, "valid", valid(), other), dryRun)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a well-formed configuration is accepted")
	})
})
