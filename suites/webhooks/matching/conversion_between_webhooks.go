package matching

import (
	"encoding/json"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var conversionBetweenMutatingWebhooks = spec.Spec{
	ShortName: "ConversionBetweenMutatingWebhooks",
	Suite:     "webhooks",
	Description: "A mutating webhook registered for another version of a kind (matchPolicy Equivalent), called after one " +
		"registered for the request's version, gets the object converted to its version with the earlier webhook's patch " +
		"already applied (and on UPDATE the old object converted too); the stored object carries both patches.",
	Features: []features.Name{features.MutatingWebhook},
	Profile:  spec.Core,
	Seed: "admissionregistration.k8s.io/v1 MutatingWebhook.matchPolicy (\"Equivalent: ... the request will be converted to " +
		"the version the webhook is registered for\"); kubernetes.io Dynamic Admission Control (each mutating webhook sees " +
		"the object as modified by the webhooks before it)",
}

var _ = harness.Describe(conversionBetweenMutatingWebhooks, func(f *harness.Framework) {
	ginkgo.It("a webhook for v2 after one for v1 gets the v1 request converted to v2 with the first patch applied, on CREATE and UPDATE", func(ctx ginkgo.SpecContext) {
		crd := speckit.WidgetCRD(f)
		gomega.Expect(speckit.CreateCRD(ctx, f, crd)).To(gomega.Succeed())
		rules := func(version string) []admissionregistrationv1.RuleWithOperations {
			r := speckit.WidgetRules(crd, version)
			r[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
			return r
		}
		label := func(key string) fakewebhook.Behaviour {
			return fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: []fakewebhook.PatchOperation{{Op: "add", Path: "/metadata/labels/" + key, Value: "1"}}}
		}
		// One configuration: its webhooks are called in their order, the
		// v1 one first; the v2 one is Equivalent, so it is called for the
		// v1 request with the object converted.
		reg, err := f.RegisterMutating(ctx, "cr-convert",
			harness.Hook{Name: "first", Rules: rules("v1"), MatchPolicy: ptr.To(admissionregistrationv1.Exact), Behaviour: label("a")},
			harness.Hook{Name: "second", Rules: rules("v2"), MatchPolicy: ptr.To(admissionregistrationv1.Equivalent), Behaviour: label("b")})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		callsOf := func(hook, operation string) []fakewebhook.Call {
			return f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool {
				return c.Path == reg.Hooks[hook].Path && c.Name == "converted" && c.Namespace == f.Namespace && c.Operation == operation
			})
		}
		v1Kind := metav1.GroupVersionKind{Group: crd.Spec.Group, Version: "v1", Kind: crd.Spec.Names.Kind}
		v2Kind := metav1.GroupVersionKind{Group: crd.Spec.Group, Version: "v2", Kind: crd.Spec.Names.Kind}
		both := map[string]any{"origin": "client", "a": "1", "b": "1"}
		labelsOf := func(obj map[string]any) any {
			meta, _ := obj["metadata"].(map[string]any)
			return meta["labels"]
		}
		expectSecondCall := func(operation string) fakewebhook.Call {
			gomega.ExpectWithOffset(1, callsOf("first", operation)).To(gomega.HaveLen(1), "the v1 webhook is called once for the %s", operation)
			calls := callsOf("second", operation)
			gomega.ExpectWithOffset(1, calls).To(gomega.HaveLen(1), "the Equivalent v2 webhook is called once for the v1 %s", operation)
			call := calls[0]
			gomega.ExpectWithOffset(1, call.Kind).To(gomega.Equal(v2Kind), "request.kind is the second webhook's version")
			gomega.ExpectWithOffset(1, call.RequestKind).To(gomega.Equal(&v1Kind), "request.requestKind is the request's version")
			obj := receivedObject(call)
			gomega.ExpectWithOffset(1, obj["apiVersion"]).To(gomega.Equal(crd.Spec.Group+"/v2"), "the object is converted to the second webhook's version")
			gomega.ExpectWithOffset(1, labelsOf(obj)).To(gomega.HaveKeyWithValue("a", "1"), "the converted object carries the first webhook's patch")
			return call
		}

		res := speckit.Widgets(f, crd, "v1")
		w := speckit.Widget(f, crd, "v1", "converted", map[string]any{"color": "blue"})
		w.SetLabels(map[string]string{"origin": "client"})
		created, err := res.Create(ctx, w, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(created.GetAPIVersion()).To(gomega.Equal(crd.Spec.Group+"/v1"), "the answer is in the request's version")
		gomega.Expect(created.GetLabels()).To(gomega.Equal(map[string]string{"origin": "client", "a": "1", "b": "1"}), "the create answers with both patches")
		call := expectSecondCall("CREATE")
		gomega.Expect(receivedObject(call)["spec"]).To(gomega.Equal(map[string]any{"color": "blue"}), "the converted object keeps its content")
		gomega.Expect(call.OldObject).To(gomega.Or(gomega.BeEmpty(), gomega.MatchJSON("null")), "a CREATE has no old object")

		stored, err := res.Get(ctx, "converted", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(stored.GetLabels()).To(gomega.Equal(map[string]string{"origin": "client", "a": "1", "b": "1"}), "the stored object carries both patches")

		// UPDATE: the labels the webhooks added are taken off by the client
		// and put back by them; the old object is the stored one, converted.
		update := stored.DeepCopy()
		update.SetLabels(map[string]string{"origin": "client"})
		gomega.Expect(unstructured.SetNestedField(update.Object, "red", "spec", "color")).To(gomega.Succeed())
		updated, err := res.Update(ctx, update, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(updated.GetLabels()).To(gomega.Equal(map[string]string{"origin": "client", "a": "1", "b": "1"}), "the update answers with both patches")
		call = expectSecondCall("UPDATE")
		gomega.Expect(receivedObject(call)["spec"]).To(gomega.Equal(map[string]any{"color": "red"}), "the converted object is the update's")
		var old map[string]any
		gomega.Expect(call.OldObject).NotTo(gomega.BeEmpty(), "an UPDATE carries the old object")
		gomega.Expect(json.Unmarshal(call.OldObject, &old)).To(gomega.Succeed())
		gomega.Expect(old["apiVersion"]).To(gomega.Equal(crd.Spec.Group+"/v2"), "the old object is converted to the second webhook's version")
		gomega.Expect(labelsOf(old)).To(gomega.Equal(both), "the old object is the stored one")
		gomega.Expect(old["spec"]).To(gomega.Equal(map[string]any{"color": "blue"}), "the old object is the stored one")

		stored, err = res.Get(ctx, "converted", metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(stored.GetLabels()).To(gomega.Equal(map[string]string{"origin": "client", "a": "1", "b": "1"}), "the stored object carries both patches")
		gomega.Expect(stored.Object["spec"]).To(gomega.Equal(map[string]any{"color": "red"}))
	})
})
