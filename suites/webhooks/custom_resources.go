package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/runobjects"
	"github.com/admission-conformance/admission-conformance/framework/spec"
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

// widgetCRD is a namespaced CustomResourceDefinition of the case (a kind
// and plural of its own in runobjects.CustomResourceGroup) with
// versions v1 (stored) and v2 (served), both of the schema
// spec.{color,size,items,tags},
// converted by apiVersion alone (strategy None).
func widgetCRD(f *harness.Framework) *apiextensionsv1.CustomResourceDefinition {
	suffix := f.Namespace[strings.LastIndex(f.Namespace, "-")+1:]
	plural, kind := "widgets"+suffix, "Widget"+suffix
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"color": {Type: "string"}, "size": {Type: "integer"},
				// items merge by name (a map list), tags only whole (an
				// atomic list): CustomResourceMutatingPolicy applies to both.
				"items": {Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"},
					Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", Required: []string{"name"},
						Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": {Type: "string"}, "value": {Type: "string"}},
					}}},
				"tags": {Type: "array", XListType: ptr.To("atomic"),
					Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
				// free has no type: a value of any kind (a scalar, a list or
				// an object) is kept as sent.
				"free": {XPreserveUnknownFields: ptr.To(true)},
			}},
		},
	}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + runobjects.CustomResourceGroup, Labels: f.Labels()},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: runobjects.CustomResourceGroup, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: strings.ToLower(kind), Kind: kind, ListKind: kind + "List"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema},
				{Name: "v2", Served: true, Storage: false, Schema: schema},
			},
		},
	}
}

// createCRD creates crd, deleted after the case, and waits until both
// versions serve lists.
func createCRD(ctx context.Context, f *harness.Framework, crd *apiextensionsv1.CustomResourceDefinition) error {
	client, err := apiextensionsclient.NewForConfig(f.Config)
	if err != nil {
		return err
	}
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	if _, err := api.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create CustomResourceDefinition %s: %w", crd.Name, err)
	}
	ginkgo.DeferCleanup(ignoreNotFound, api.Delete, crd.Name)
	for _, v := range crd.Spec.Versions {
		res := widgets(f, crd, v.Name)
		served := func(ctx context.Context) (bool, error) {
			_, err := res.List(ctx, metav1.ListOptions{})
			return err == nil, nil
		}
		if err := wait.PollUntilContextTimeout(ctx, f.Bounds.PollInterval.Duration, f.Bounds.ObjectState.Duration, true, served); err != nil {
			return fmt.Errorf("CustomResourceDefinition %s: version %s not served within %s: %w", crd.Name, v.Name, f.Bounds.ObjectState.Duration, err)
		}
	}
	return nil
}

// widgets is the case's namespace's custom resources of crd in version.
func widgets(f *harness.Framework, crd *apiextensionsv1.CustomResourceDefinition, version string) dynamic.ResourceInterface {
	return f.Dynamic.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}).Namespace(f.Namespace)
}

// widget is a custom resource of crd in version with the given spec.
func widget(f *harness.Framework, crd *apiextensionsv1.CustomResourceDefinition, version, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": crd.Spec.Group + "/" + version, "kind": crd.Spec.Names.Kind,
		"metadata": map[string]any{"name": name, "namespace": f.Namespace},
		"spec":     spec,
	}}
}

func widgetRules(crd *apiextensionsv1.CustomResourceDefinition, version string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{crd.Spec.Group}, APIVersions: []string{version}, Resources: []string{crd.Spec.Names.Plural},
			Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}

// receivedObject is the object a webhook received in call, decoded.
func receivedObject(call fakewebhook.Call) map[string]any {
	var obj map[string]any
	gomega.ExpectWithOffset(1, json.Unmarshal(call.Object, &obj)).To(gomega.Succeed(), "the object of the review")
	return obj
}

var _ = harness.Describe(customResourceAdmission, func(f *harness.Framework) {
	ginkgo.It("a mutating webhook's patch of a custom resource is stored and seen by the validating webhook", func(ctx ginkgo.SpecContext) {
		crd := widgetCRD(f)
		gomega.Expect(createCRD(ctx, f, crd)).To(gomega.Succeed())
		mutating, err := f.RegisterMutating(ctx, "cr-patch", harness.Hook{Name: "size", Rules: widgetRules(crd, "v1"),
			Behaviour: fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: []fakewebhook.PatchOperation{{Op: "add", Path: "/spec/size", Value: 3}}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		validating, err := f.RegisterValidating(ctx, "cr-see", harness.Hook{Name: "see", Rules: widgetRules(crd, "v1"), Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		res := widgets(f, crd, "v1")
		created, err := res.Create(ctx, widget(f, crd, "v1", "patched", map[string]any{"color": "blue"}), metav1.CreateOptions{})
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
		crd := widgetCRD(f)
		gomega.Expect(createCRD(ctx, f, crd)).To(gomega.Succeed())
		hook := func(name string, policy admissionregistrationv1.MatchPolicyType) harness.Hook {
			return harness.Hook{Name: name, Rules: widgetRules(crd, "v1"), MatchPolicy: ptr.To(policy), Behaviour: allow()}
		}
		reg, err := f.RegisterValidating(ctx, "cr-versions", hook("equivalent", admissionregistrationv1.Equivalent), hook("exact", admissionregistrationv1.Exact))
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		for _, version := range []string{"v1", "v2"} {
			res := widgets(f, crd, version)
			_, err := res.Create(ctx, widget(f, crd, version, "in-"+version, map[string]any{"color": "green"}), metav1.CreateOptions{})
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
		crd := widgetCRD(f)
		gomega.Expect(createCRD(ctx, f, crd)).To(gomega.Succeed())
		unconverted, tooBig := "the policy sees the object in the request's version", "size over 5"
		gomega.Expect(vapWith(ctx, f, "cr", admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{MatchPolicy: ptr.To(admissionregistrationv1.Equivalent),
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: widgetRules(crd, "v1")[0]}}},
			Validations: []admissionregistrationv1.Validation{
				{Expression: fmt.Sprintf("object.apiVersion == '%s/v1'", crd.Spec.Group), Message: unconverted},
				{Expression: "!has(object.spec.size) || object.spec.size <= 5", Message: tooBig},
			},
		}, admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{ValidationActions: denyAction()})).To(gomega.Succeed())

		create := func(version, name string, size int64) error {
			res := widgets(f, crd, version)
			_, err := res.Create(ctx, widget(f, crd, version, name, map[string]any{"size": size}), metav1.CreateOptions{})
			return err
		}
		gomega.Expect(create("v2", "small-v2", 3)).To(gomega.Succeed(), "a v2 request is seen by the v1 policy as v1, and size 3 passes")
		expectPolicyDenial(create("v2", "big-v2", 7), 422, metav1.StatusReasonInvalid, vapDenied(f, "cr", tooBig))
		expectPolicyDenial(create("v1", "big-v1", 7), 422, metav1.StatusReasonInvalid, vapDenied(f, "cr", tooBig))
		gomega.Expect(create("v1", "small-v1", 3)).To(gomega.Succeed())
	})
})
