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

var initializerConfigurationsCreatedFailOpen = spec.Spec{
	ShortName: "InitializerConfigurationsCreatedFailOpen",
	Suite:     "initializers",
	Description: "An InitializerConfiguration with a Fail initializer cannot be created (403 naming it); one with Ignore " +
		"or no policy (defaulted to Ignore) can, and can then be updated to Fail.",
	Features: []features.Name{features.ReferenceInitializers},
	Profile:  spec.Reference,
	Seed: "002 Handling initializers/webhooks that are not ready but registered: we only allow initializers to be " +
		"created as fail open; they can upgrade themselves to fail closed via the normal Update operation",
	Isolation: usesInitializers,
}

var _ = harness.Describe(initializerConfigurationsCreatedFailOpen, func(f *harness.Framework) {
	ginkgo.It("refuses Fail at creation, defaults to Ignore, and accepts an update to Fail", func(ctx ginkgo.SpecContext) {
		closed, open := gate(f, "closed"), gate(f, "open")
		for what, c := range map[string]*v1alpha1.InitializerConfiguration{
			"only a Fail initializer":                newConfiguration(f, "fail", initializer(closed, v1alpha1.Fail, 5)),
			"a Fail initializer after an Ignore one": newConfiguration(f, "mixed", initializer(open, v1alpha1.Ignore, 5), initializer(closed, v1alpha1.Fail, 5)),
		} {
			_, err := createConfiguration(ctx, f, c, metav1.CreateOptions{})
			gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "%s: want 403 Forbidden, got %v", what, err)
			gomega.Expect(err.Error()).To(gomega.ContainSubstring(closed), "%s: the denial names the Fail initializer", what)
			_, err = configurations(f).Get(ctx, c.Name, metav1.GetOptions{})
			gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "%s: the refused configuration exists: %v", what, err)
		}

		unset := initializer(open, v1alpha1.Ignore, 5)
		unset.FailurePolicy = nil
		created, err := createConfiguration(ctx, f, newConfiguration(f, "open", unset), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a configuration without a failure policy is fail-open")
		gomega.Expect(created.Initializers[0].FailurePolicy).To(gomega.Equal(ptr.To(v1alpha1.Ignore)), "the policy defaults to Ignore")

		updated, err := updateConfiguration(ctx, f, created.Name, func(c *v1alpha1.InitializerConfiguration) {
			c.Initializers[0].FailurePolicy = ptr.To(v1alpha1.Fail)
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "an update to Fail is allowed")
		gomega.Expect(updated.Initializers[0].FailurePolicy).To(gomega.Equal(ptr.To(v1alpha1.Fail)))
	})
})
