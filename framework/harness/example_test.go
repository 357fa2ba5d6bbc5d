package harness_test

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// A spec: its metadata, then its cases. Each case gets its own namespace
// (f.Namespace), clients (f.Client, f.Dynamic, f.Replicas), the run's bounds
// (f.Bounds) and fake webhook server (f.Env.Webhooks); what it registers is
// scoped to it and removed after it. It runs under a binary whose main is
// conformance.Main (examples/vendor-suite), on a cluster the harness boots.
func ExampleDescribe() {
	s := spec.Spec{
		ShortName:   "ExampleDeniesLabelled",
		Suite:       "webhooks",
		Description: "A ConfigMap labelled example/forbidden is refused.",
		Features:    []features.Name{features.ValidatingWebhook},
		Profile:     spec.Core,
		Seed:        "an example clause",
	}
	_ = harness.Describe(s, func(f *harness.Framework) {
		ginkgo.It("refuses it", func(ctx ginkgo.SpecContext) {
			_, err := f.RegisterValidating(ctx, "deny", harness.Hook{
				Name:           "forbidden",
				Behaviour:      fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "refused"},
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"example/forbidden": "true"}},
			})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Labels: map[string]string{"example/forbidden": "true"}}}
			_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue())
		})
	})
}
