package ordering

import (
	"errors"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var immortalNamespaces = spec.Spec{
	ShortName: "ImmortalNamespaces",
	Suite:     "ordering",
	Description: "The NamespaceLifecycle plugin refuses the deletion of the three system reserved namespaces default, " +
		"kube-system and kube-public (403 \"this namespace may not be deleted\"), dry runs too; another namespace's " +
		"dry-run deletion is admitted.",
	Profile: spec.Core,
	Seed: "003 NamespaceLifecycle; kubernetes.io Admission Controllers, NamespaceLifecycle (\"prevents deletion of three " +
		"system reserved namespaces default, kube-system, kube-public\")",
}

var _ = harness.Describe(immortalNamespaces, func(f *harness.Framework) {
	ginkgo.It("a dry-run deletion of default, kube-system and kube-public is refused with 403; the case's own namespace's is admitted", func(ctx ginkgo.SpecContext) {
		// Dry runs only: a broken implementation that admits the deletion
		// still deletes nothing.
		dryRun := metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}
		for _, name := range []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic} {
			err := f.Client.CoreV1().Namespaces().Delete(ctx, name, dryRun)
			gomega.Expect(err).To(gomega.HaveOccurred(), "the deletion of %s must be refused", name)
			var status apierrors.APIStatus
			gomega.Expect(errors.As(err, &status)).To(gomega.BeTrue(), "a refusal must be a Status, got %T: %v", err, err)
			s := status.Status()
			gomega.Expect(s.Code).To(gomega.Equal(int32(http.StatusForbidden)), "the deletion of %s: %v", name, err)
			gomega.Expect(s.Reason).To(gomega.Equal(metav1.StatusReasonForbidden), "the deletion of %s: %v", name, err)
			gomega.Expect(s.Message).To(gomega.Equal(`namespaces "` + name + `" is forbidden: this namespace may not be deleted`))
			gomega.Expect(s.Details).NotTo(gomega.BeNil())
			gomega.Expect(s.Details.Name).To(gomega.Equal(name))
			gomega.Expect(s.Details.Kind).To(gomega.Equal("namespaces"))
			ns, err := f.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			gomega.Expect(ns.DeletionTimestamp).To(gomega.BeNil(), "%s is not being deleted", name)
		}
		// The control: the same dry-run deletion of an ordinary namespace is
		// admitted, so the refusals above are the plugin's, not the request's.
		gomega.Expect(f.Client.CoreV1().Namespaces().Delete(ctx, f.Namespace, dryRun)).To(gomega.Succeed(),
			"a dry-run deletion of an ordinary namespace is admitted")
		ns, err := f.Client.CoreV1().Namespaces().Get(ctx, f.Namespace, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(ns.DeletionTimestamp).To(gomega.BeNil(), "a dry run deletes nothing")
	})
})
