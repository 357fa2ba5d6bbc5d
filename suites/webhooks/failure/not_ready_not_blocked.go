package failure

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var notReadyNotBlocked = spec.Spec{
	ShortName: "UnreadyWebhookDoesNotBlock",
	Suite:     "webhooks",
	Description: "A registered webhook whose server does not exist yet does not block requests when it is Ignore; " +
		"when it is Fail it rejects only the requests in its own scope.",
	Features: []features.Name{features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "002 Goals: do not block the entire cluster if the initializers/webhooks are not ready after " +
		"registration; Handling initializers/webhooks that are not ready but registered",
}

var _ = harness.Describe(notReadyNotBlocked, func(f *harness.Framework) {
	ginkgo.It("an Ignore webhook with no server lets requests in its scope through", func(ctx ginkgo.SpecContext) {
		nowhere, err := speckit.RefusingAddress()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// RegisterValidating returns once the configuration is enforced (its
		// marker hook answers), so the request below meets the unready hook.
		_, err = f.RegisterValidating(ctx, "unready", harness.Hook{
			Name: "no-server", URL: "https://" + nowhere + "/not-yet", FailurePolicy: admissionregistrationv1.Ignore,
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "an unready Ignore webhook must not block requests")
	})

	ginkgo.It("a Fail webhook with no server rejects requests in its scope only", func(ctx ginkgo.SpecContext) {
		nowhere, err := speckit.RefusingAddress()
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		reg, err := f.RegisterValidating(ctx, "unready", harness.Hook{
			Name: "no-server", URL: "https://" + nowhere + "/not-yet", FailurePolicy: admissionregistrationv1.Fail,
		})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		speckit.ExpectCallFailure(err, reg.Hooks["no-server"].FullName)

		other, err := f.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			GenerateName: f.Namespace + "-outside-", Labels: f.Labels(),
		}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.CoreV1().Namespaces().Delete, other.Name)
		_, err = f.Client.CoreV1().ConfigMaps(other.Name).Create(ctx, speckit.Subject(other.Name), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "a Fail webhook must not block requests outside its scope")
	})
})
