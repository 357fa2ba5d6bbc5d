package review

import (
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var admissionReviewVersions = spec.Spec{
	ShortName:   "AdmissionReviewVersionNegotiation",
	Suite:       "webhooks",
	Description: "A webhook receives the first AdmissionReview version in its admissionReviewVersions that the apiserver speaks.",
	Features:    []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:     spec.Core,
	Seed:        "002 The API will evolve: webhooks declare the review versions they accept and the server picks",
}

var _ = harness.Describe(admissionReviewVersions, func(f *harness.Framework) {
	cases := []struct {
		listed []string
		want   string
	}{
		{[]string{"v1", "v1beta1"}, "admission.k8s.io/v1"},
		{[]string{"v1beta1", "v1"}, "admission.k8s.io/v1beta1"},
		{[]string{"v9", "v1"}, "admission.k8s.io/v1"},
	}
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		for _, tc := range cases {
			ginkgo.It(fmt.Sprintf("%s webhook listing %v receives %s", phase, tc.listed, tc.want), func(ctx ginkgo.SpecContext) {
				reg, err := speckit.Register(ctx, f, phase, harness.Hook{
					Name: "versions-" + strings.Join(tc.listed, "-"), AdmissionReviewVersions: tc.listed,
					Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Allow},
				})
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				cm := speckit.Subject(f.Namespace)
				_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the webhook answers in the version it was sent")
				calls := speckit.CallsTo(f, reg.Hooks["versions-"+strings.Join(tc.listed, "-")], f.Namespace, cm.Name)
				gomega.Expect(calls).To(gomega.HaveLen(1))
				gomega.Expect(calls[0].ReviewVersion).To(gomega.Equal(tc.want))
			})
		}
	}
})
