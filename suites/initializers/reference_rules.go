package initializers

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

var initializerRulesMatching = spec.Spec{
	ShortName: "InitializerRulesMatching",
	Suite:     "initializers",
	Description: "An initializer applies to a pod creation when any of its rules matches, with '*' matching every group, " +
		"version or resource; an initializer without a matching rule is not assigned, and one named in two " +
		"configurations is assigned once, where the first configuration puts it.",
	Features: []features.Name{features.ReferenceInitializers},
	Profile:  spec.Reference,
	Seed: "002 Specification: the initializer cares about an operation if it matches any Rule; '*' is all groups, " +
		"all versions, all resources",
	Isolation: usesInitializers,
}

var _ = harness.Describe(initializerRulesMatching, func(f *harness.Framework) {
	ginkgo.It("assigns the initializers whose rules match pods, once each", func(ctx ginkgo.SpecContext) {
		rule := func(groups, versions, resources string) v1alpha1.Rule {
			return v1alpha1.Rule{APIGroups: []string{groups}, APIVersions: []string{versions}, Resources: []string{resources}}
		}
		with := func(name string, rules ...v1alpha1.Rule) v1alpha1.Initializer {
			in := initializer(gate(f, name), v1alpha1.Ignore, 30)
			in.Rules = rules
			return in
		}
		_, err := createConfiguration(ctx, f, newConfiguration(f, "a",
			with("second-rule", rule("apps", "v1", "deployments"), rule("*", "*", "*")),
			with("all-groups", rule("*", "v1", "pods")),
			with("configmaps-only", rule("", "v1", "configmaps")),
			with("other-version", rule("", "v2", "pods")),
			with("no-rules"),
			with("shared", rule("", "*", "pods")),
		), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = createConfiguration(ctx, f, newConfiguration(f, "b",
			with("core-pods", rule("", "v1", "pods")),
			with("shared", rule("", "v1", "pods")),
		), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		want := []string{gate(f, "second-rule"), gate(f, "all-groups"), gate(f, "shared"), gate(f, "core-pods")}
		gomega.Expect(waitAssigned(ctx, f, want)).To(gomega.Succeed())
		p, err := f.Client.CoreV1().Pods(f.Namespace).Create(ctx, newPod(f.Namespace, "subject"), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(gateNames(p)).To(gomega.Equal(want))
		assigned, err := v1alpha1.AssignedTo(p)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(assigned).To(gomega.HaveLen(len(want)))
		gomega.Expect(assigned[2].Configuration).To(gomega.Equal(configurationName(f, "a")), "a shared initializer comes from the first configuration")
	})
})
