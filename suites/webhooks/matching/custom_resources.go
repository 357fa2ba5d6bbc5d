package matching

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
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var customResourceAdmission = spec.Spec{
	ShortName: "CustomResourceAdmission",
	Suite:     "webhooks",
	Description: "Webhooks apply to custom resources as to built-in ones: a mutating webhook's patch of a custom resource is " +
		"stored and seen by the validating webhooks; with two served versions, a webhook registered for one version with " +
		"matchPolicy Equivalent is called for a request in the other with the object converted to its version (kind and " +
		"apiVersion of its own, requestKind the request's), and with matchPolicy Exact it is not called; a " +
		"ValidatingAdmissionPolicy for one version with matchPolicy Equivalent reads a request in the other converted to its version.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.ValidatingAdmissionPolicy},
	Profile:  spec.Core,
	Seed:     "002 ExternalAdmissionHook: the webhook cares about an operation only where its rules (and scope) match; admissionregistration.k8s.io/v1 matchPolicy",
}

var _ = harness.Describe(customResourceAdmission, func(f *harness.Framework) {
	ginkgo.It("a mutating webhook's patch of a custom resource is stored and seen by the validating webhook", func(ctx ginkgo.SpecContext) {
		crd := speckit.WidgetCRD(f)
		gomega.Expect(speckit.CreateCRD(ctx, f, crd)).To(gomega.Succeed())
		mutating, err := f.RegisterMutating(ctx, "cr-patch", harness.Hook{Name: "size", Rules: speckit.WidgetRules(crd, "v1"),
			Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: []fakewebhook.PatchOperation{{Op: "add", Path: "/spec/size", Value: 3}}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		validating, err := f.RegisterValidating(ctx, "cr-see", harness.Hook{Name: "see", Rules: speckit.WidgetRules(crd, "v1"), Behaviour: speckit.Allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		res := speckit.Widgets(f, crd, "v1")
		created, err := res.Create(ctx, speckit.Widget(f, crd, "v1", "patched", map[string]any{"color": "blue"}), metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(created.Object["spec"]).To(gomega.Equal(map[string]any{"color": "blue", "size": int64(3)}), "the create answers with the patched custom resource")
		stored, err := res.Get(ctx, "patched", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(stored.Object["spec"]).To(gomega.Equal(map[string]any{"color": "blue", "size": int64(3)}), "the mutating webhook's patch is stored")

		calls := f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
			return c.Path == validating.Hooks["see"].Path && c.Name == "patched" && c.Namespace == f.Namespace
		})
		gomega.Expect(calls).To(gomega.HaveLen(1), "the validating webhook is called once for the custom resource")
		gomega.Expect(receivedObject(calls[0])["spec"]).To(gomega.Equal(map[string]any{"color": "blue", "size": float64(3)}),
			"the validating webhook sees the object the mutating webhook patched")
		gomega.Expect(calls[0].Kind).To(gomega.Equal(metav1.GroupVersionKind{Group: crd.Spec.Group, Version: "v1", Kind: crd.Spec.Names.Kind}))
		gomega.Expect(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
			return c.Path == mutating.Hooks["size"].Path && c.Name == "patched"
		})).To(gomega.HaveLen(1), "the mutating webhook is called once")
	})

	ginkgo.It("matchPolicy across two served versions: Equivalent gets the object converted to its version, Exact is not called", func(ctx ginkgo.SpecContext) {
		crd := speckit.WidgetCRD(f)
		gomega.Expect(speckit.CreateCRD(ctx, f, crd)).To(gomega.Succeed())
		hook := func(name string, policy admissionregistrationv1.MatchPolicyType) harness.Hook {
			return harness.Hook{Name: name, Rules: speckit.WidgetRules(crd, "v1"), MatchPolicy: ptr.To(policy), Behaviour: speckit.Allow()}
		}
		reg, err := f.RegisterValidating(ctx, "cr-versions", hook("equivalent", admissionregistrationv1.Equivalent), hook("exact", admissionregistrationv1.Exact))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		for _, version := range []string{"v1", "v2"} {
			res := speckit.Widgets(f, crd, version)
			_, err := res.Create(ctx, speckit.Widget(f, crd, version, "in-"+version, map[string]any{"color": "green"}), metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
		}
		callsOf := func(hook, name string) []fakewebhook.Call {
			return f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
				return c.Path == reg.Hooks[hook].Path && c.Name == name && c.Namespace == f.Namespace
			})
		}
		v1Kind := metav1.GroupVersionKind{Group: crd.Spec.Group, Version: "v1", Kind: crd.Spec.Names.Kind}
		v2Kind := metav1.GroupVersionKind{Group: crd.Spec.Group, Version: "v2", Kind: crd.Spec.Names.Kind}
		gomega.Expect(callsOf("exact", "in-v1")).To(gomega.HaveLen(1), "Exact is called for a request in its version")
		gomega.Expect(callsOf("exact", "in-v2")).To(gomega.BeEmpty(), "Exact is not called for a request in another version")
		gomega.Expect(callsOf("equivalent", "in-v1")).To(gomega.HaveLen(1), "Equivalent is called for a request in its version")

		calls := callsOf("equivalent", "in-v2")
		gomega.Expect(calls).To(gomega.HaveLen(1), "Equivalent is called for a request in another served version of the resource")
		call := calls[0]
		gomega.Expect(call.Kind).To(gomega.Equal(v1Kind), "request.kind is the webhook's version")
		gomega.Expect(call.Resource.Version).To(gomega.Equal("v1"), "request.resource is the webhook's version")
		gomega.Expect(call.RequestKind).To(gomega.Equal(&v2Kind), "request.requestKind is the request's version")
		obj := receivedObject(call)
		gomega.Expect(obj["apiVersion"]).To(gomega.Equal(crd.Spec.Group+"/v1"), "the object is converted to the webhook's version")
		gomega.Expect(obj["spec"]).To(gomega.Equal(map[string]any{"color": "green"}), "the converted object keeps its content")
	})

	ginkgo.It("a policy for one version with matchPolicy Equivalent reads a request in the other, converted to its version", func(ctx ginkgo.SpecContext) {
		crd := speckit.WidgetCRD(f)
		gomega.Expect(speckit.CreateCRD(ctx, f, crd)).To(gomega.Succeed())
		unconverted, tooBig := "the policy sees the object in the request's version", "size over 5"
		gomega.Expect(speckit.VAPWith(ctx, f, "cr", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{MatchPolicy: ptr.To(admissionregistrationv1.Equivalent),
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: speckit.WidgetRules(crd, "v1")[0]}}},
			Validations: []admissionregistrationv1.Validation{
				{Expression: fmt.Sprintf("object.apiVersion == '%s/v1'", crd.Spec.Group), Message: unconverted},
				{Expression: "!has(object.spec.size) || object.spec.size <= 5", Message: tooBig},
			},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: speckit.DenyAction()})).To(gomega.Succeed())

		create := func(version, name string, size int64) error {
			res := speckit.Widgets(f, crd, version)
			_, err := res.Create(ctx, speckit.Widget(f, crd, version, name, map[string]any{"size": size}), metav1.CreateOptions{})
			return err
		}
		gomega.Expect(create("v2", "small-v2", 3)).To(gomega.Succeed(), "a v2 request is seen by the v1 policy as v1, and size 3 passes")
		speckit.ExpectPolicyDenial(create("v2", "big-v2", 7), 422, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "cr", tooBig))
		speckit.ExpectPolicyDenial(create("v1", "big-v1", 7), 422, metav1.StatusReasonInvalid, speckit.VAPDenied(f, "cr", tooBig))
		gomega.Expect(create("v1", "small-v1", 3)).To(gomega.Succeed())
	})
})
