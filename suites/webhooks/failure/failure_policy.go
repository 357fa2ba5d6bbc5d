package failure

import (
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/pki"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var failurePolicyEveryFailureMode = spec.Spec{
	ShortName: "FailurePolicyEveryFailureMode",
	Suite:     "webhooks",
	Description: "For mutating and validating webhooks, every way a call can fail (timeout, refused connection, untrusted " +
		"certificate, a caBundle holding no certificate, HTTP 500, malformed body, wrong uid, wrong apiVersion) is ignored under Ignore (the request " +
		"succeeds without the mutation) and rejects the request with 500 InternalError naming the webhook under Fail.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "002 ExternalAdmissionHook.FailurePolicy: how unrecognized errors from the admission endpoint are " +
		"handled, Ignore or Fail; Retry excluded to expose the flakiness of an admission controller",
}

// failureMode is one way a webhook call can fail, applied to a hook.
type failureMode struct {
	name  string
	apply func(h *harness.Hook) error
}

var failureModes = []failureMode{
	{"hang past timeoutSeconds", func(h *harness.Hook) error {
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.Hang}
		h.TimeoutSeconds = ptr.To[int32](1)
		return nil
	}},
	{"connection refused", func(h *harness.Hook) error {
		addr, err := speckit.RefusingAddress()
		h.URL = "https://" + addr + "/refused"
		return err
	}},
	{"TLS with an untrusted CA", func(h *harness.Hook) error {
		other, err := pki.NewCA("untrusted-ca")
		if err == nil {
			h.CABundle = other.CertPEM()
		}
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey}
		return err
	}},
	{"a caBundle that holds no certificate", func(h *harness.Hook) error {
		// The apiserver cannot even build a client for the webhook (its
		// caBundle is PEM-framed but no certificate): the call fails
		// before anything is sent, which failurePolicy decides like any
		// other call error.
		h.CABundle = []byte("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n")
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey}
		return nil
	}},
	{"HTTP 500", func(h *harness.Hook) error {
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.InternalError}
		return nil
	}},
	{"malformed body", func(h *harness.Hook) error {
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.Malformed}
		return nil
	}},
	{"wrong uid", func(h *harness.Hook) error {
		// The answer carries a patch: applying it would show the
		// apiserver accepted an answer to another request.
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.WrongUID, Patch: speckit.AddMutatedKey}
		return nil
	}},
	{"wrong apiVersion", func(h *harness.Hook) error {
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.WrongAPIVersion, Patch: speckit.AddMutatedKey}
		return nil
	}},
	{"answer without apiVersion and kind", func(h *harness.Hook) error {
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.NoTypeMeta, Patch: speckit.AddMutatedKey}
		return nil
	}},
	{"answer in admission.k8s.io/v1beta1 to a v1 request", func(h *harness.Hook) error {
		// A version the apiserver decodes, but not the one it asked in;
		// the patch would show the answer was taken.
		h.Behaviour = fakewebhook.Behaviour{Action: fakewebhook.OtherReviewVersion, Patch: speckit.AddMutatedKey}
		h.AdmissionReviewVersions = []string{"v1"}
		return nil
	}},
}

var _ = harness.Describe(failurePolicyEveryFailureMode, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		for _, policy := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Ignore, admissionregistrationv1.Fail} {
			for _, mode := range failureModes {
				ginkgo.It(fmt.Sprintf("%s webhook, failurePolicy %s, %s", phase, policy, mode.name), func(ctx ginkgo.SpecContext) {
					hook := harness.Hook{Name: "failing", FailurePolicy: policy}
					gomega.Expect(mode.apply(&hook)).To(gomega.Succeed())
					if phase == fakewebhook.Validating {
						// A validating answer may carry no patch at all, so
						// one would fail the call whatever else is wrong:
						// the case must show the mode's fault alone.
						hook.Behaviour.Patch = nil
					}
					reg, err := speckit.Register(ctx, f, phase, hook)
					gomega.Expect(err).NotTo(gomega.HaveOccurred())
					webhook := reg.Hooks["failing"].FullName

					cm := speckit.Subject(f.Namespace)
					stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
					if policy == admissionregistrationv1.Fail {
						speckit.ExpectCallFailure(err, webhook)
						return
					}
					gomega.Expect(err).NotTo(gomega.HaveOccurred(), "failurePolicy Ignore must let the request through")
					gomega.Expect(stored.Data).NotTo(gomega.HaveKey("mutated"), "a failed call's mutation must not be applied")
				})
			}
		}
	}

	ginkgo.It("a denial's code and message reach the client", func(ctx ginkgo.SpecContext) {
		for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
			for _, code := range []int32{403, 422} {
				cm := speckit.Subject(f.Namespace)
				message := fmt.Sprintf("denied by the %s conformance webhook with %d", phase, code)
				_, err := speckit.Register(ctx, f, phase, harness.Hook{
					Name:           fmt.Sprintf("deny-%d", code),
					Behaviour:      fakewebhook.Behaviour{Action: fakewebhook.Deny, Code: code, Message: message},
					ObjectSelector: speckit.Selecting(cm),
				})
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
				gomega.Expect(err).To(gomega.HaveOccurred(), "the webhook denied the request")
				status, ok := err.(interface{ Status() metav1.Status })
				gomega.Expect(ok).To(gomega.BeTrue(), "a denial must reach the client as a Status, got %T", err)
				gomega.Expect(status.Status().Code).To(gomega.Equal(code), "the webhook's code must reach the client")
				gomega.Expect(status.Status().Message).To(gomega.ContainSubstring(message), "the webhook's message must reach the client")
			}
		}
	})
})
