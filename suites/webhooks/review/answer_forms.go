package review

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var webhookAnswerForms = spec.Spec{
	ShortName: "WebhookAnswerForms",
	Suite:     "webhooks",
	Description: "Every answer form of both AdmissionReview versions is judged as the API says: a denial without status is " +
		"400 'without explanation'; an answer without response, a validating answer with a patchType, an empty or " +
		"unknown patchType, an undecodable patch are failed calls (Fail: 500, Ignore: admitted unpatched); an empty " +
		"JSON patch changes nothing; a v1beta1 answer needs no patchType (JSONPatch is assumed) nor the request's uid, " +
		"and a v1beta1 validating answer's patch is ignored.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "001 Ensure any rejected request can propagate errors back to the caller with why the request failed; " +
		"admission.k8s.io/v1 and v1beta1 AdmissionResponse (patch, patchType, status, uid)",
}

// b64 is what a JSON patch looks like in an AdmissionResponse.
func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// addMutatedJSON adds data.mutated, as speckit.AddMutatedKey does.
const addMutatedJSON = `[{"op":"add","path":"/data/mutated","value":"by the webhook"}]`

var _ = harness.Describe(webhookAnswerForms, func(f *harness.Framework) {
	v1beta1 := []string{"v1beta1"}
	// failed are answers the apiserver cannot use: failed calls.
	failed := []struct {
		name     string
		phase    fakewebhook.Phase
		versions []string
		response map[string]any
		message  string
	}{
		{"a v1 answer without response", fakewebhook.Validating, nil, nil, "received invalid webhook response: webhook response was absent"},
		{"a v1beta1 answer without response", fakewebhook.Mutating, v1beta1, nil, "received invalid webhook response: webhook response was absent"},
		{"a validating v1 answer with a patchType and no patch", fakewebhook.Validating, nil,
			map[string]any{"allowed": true, "patchType": "JSONPatch"}, "received invalid webhook response: validating webhook may not return response.patchType"},
		{"a mutating v1 answer with an empty patchType", fakewebhook.Mutating, nil,
			map[string]any{"allowed": true, "patch": b64(addMutatedJSON), "patchType": ""}, `received invalid webhook response: webhook returned invalid response.patchType of ""`},
		{"a mutating v1 answer with patchType JSONMergePatch", fakewebhook.Mutating, nil,
			map[string]any{"allowed": true, "patch": b64(addMutatedJSON), "patchType": "JSONMergePatch"}, `unsupported patch type "JSONMergePatch"`},
		{"a mutating v1 answer with a one-byte patch and no patchType", fakewebhook.Mutating, nil,
			map[string]any{"allowed": true, "patch": b64(`[`)}, "received invalid webhook response: webhook returned response.patch but not response.patchType"},
		{"a mutating v1 answer whose patch is not a JSON patch", fakewebhook.Mutating, nil,
			map[string]any{"allowed": true, "patch": b64(`{"op":"add"}`), "patchType": "JSONPatch"}, "received undecodable patch in webhook response"},
	}
	for _, tc := range failed {
		for _, policy := range []admissionregistrationv1.FailurePolicyType{admissionregistrationv1.Fail, admissionregistrationv1.Ignore} {
			ginkgo.It(fmt.Sprintf("%s is a failed call, failurePolicy %s", tc.name, policy), func(ctx ginkgo.SpecContext) {
				reg, err := speckit.Register(ctx, f, tc.phase, harness.Hook{Name: "answer", FailurePolicy: policy, AdmissionReviewVersions: tc.versions,
					Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Raw, Response: tc.response}})
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				cm := speckit.Subject(f.Namespace)
				created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
				gomega.Expect(speckit.CallsTo(f, reg.Hooks["answer"], f.Namespace, cm.Name)).To(gomega.HaveLen(1), "the webhook must be called once")
				if policy == admissionregistrationv1.Fail {
					speckit.ExpectCallFailure(err, reg.Hooks["answer"].FullName)
					gomega.Expect(err.Error()).To(gomega.ContainSubstring(tc.message), "the failure must say what is wrong with the answer")
					_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
					gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a rejected create must store nothing, got %v", err)
					return
				}
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "failurePolicy Ignore must admit despite a failed call")
				gomega.Expect(created.Data).To(gomega.Equal(cm.Data), "nothing of an unusable answer may be applied")
			})
		}
	}

	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		for _, versions := range [][]string{{"v1"}, v1beta1} {
			ginkgo.It(fmt.Sprintf("a %s denial without status, admissionReviewVersions %v, is 400 'without explanation'", phase, versions), func(ctx ginkgo.SpecContext) {
				reg, err := speckit.Register(ctx, f, phase, harness.Hook{Name: "bare-denial", AdmissionReviewVersions: versions,
					Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Raw, Response: map[string]any{"allowed": false}}})
				gomega.Expect(err).NotTo(gomega.HaveOccurred())
				cm := speckit.Subject(f.Namespace)
				_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
				gomega.Expect(err).To(gomega.HaveOccurred(), "allowed false denies")
				var status apierrors.APIStatus
				gomega.Expect(errors.As(err, &status)).To(gomega.BeTrue(), "a denial must be a Status, got %T: %v", err, err)
				gomega.Expect(status.Status().Code).To(gomega.Equal(int32(http.StatusBadRequest)), "a denial without status has code 400: %v", err)
				gomega.Expect(status.Status().Message).To(gomega.Equal(
					fmt.Sprintf("admission webhook %q denied the request without explanation", reg.Hooks["bare-denial"].FullName)))
			})
		}
	}

	ginkgo.It("an empty JSON patch admits the object unchanged", func(ctx ginkgo.SpecContext) {
		_, err := speckit.Register(ctx, f, fakewebhook.Mutating, harness.Hook{Name: "empty", Behaviour: fakewebhook.Behaviour{
			Action: fakewebhook.Raw, Response: map[string]any{"allowed": true, "patch": b64(`[]`), "patchType": "JSONPatch"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(created.Data).To(gomega.Equal(cm.Data))
	})

	ginkgo.It("a v1beta1 mutating answer with a patch and no patchType is applied as a JSON patch", func(ctx ginkgo.SpecContext) {
		_, err := speckit.Register(ctx, f, fakewebhook.Mutating, harness.Hook{Name: "v1beta1-patch", AdmissionReviewVersions: v1beta1,
			FailurePolicy: admissionregistrationv1.Fail, Behaviour: fakewebhook.Behaviour{Action: fakewebhook.PatchWithoutType, Patch: speckit.AddMutatedKey}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "v1beta1 assumes JSONPatch when patchType is absent")
		gomega.Expect(created.Data).To(gomega.HaveKeyWithValue("mutated", "by the webhook"))
	})

	ginkgo.It("a v1beta1 answer is not held to the request's uid", func(ctx ginkgo.SpecContext) {
		_, err := speckit.Register(ctx, f, fakewebhook.Mutating, harness.Hook{Name: "v1beta1-uid", AdmissionReviewVersions: v1beta1,
			FailurePolicy: admissionregistrationv1.Fail, Behaviour: fakewebhook.Behaviour{Action: fakewebhook.WrongUID, Patch: speckit.AddMutatedKey}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "v1beta1 answers were never checked for uid, and still are not")
		gomega.Expect(created.Data).To(gomega.HaveKeyWithValue("mutated", "by the webhook"), "the answer is used")
	})

	ginkgo.It("a v1beta1 validating answer's patch is ignored, not a failed call", func(ctx ginkgo.SpecContext) {
		reg, err := speckit.Register(ctx, f, fakewebhook.Validating, harness.Hook{Name: "v1beta1-validating-patch", AdmissionReviewVersions: v1beta1,
			FailurePolicy: admissionregistrationv1.Fail, Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := speckit.Subject(f.Namespace)
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "v1beta1 validating answers may carry a patch, which is dropped")
		gomega.Expect(speckit.CallsTo(f, reg.Hooks["v1beta1-validating-patch"], f.Namespace, cm.Name)).To(gomega.HaveLen(1))
		gomega.Expect(created.Data).To(gomega.Equal(cm.Data), "a validating webhook never mutates")
	})
})
