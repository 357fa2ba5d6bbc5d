package speckit

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/runobjects"
)

// WidgetCRD is a namespaced CustomResourceDefinition of the case (a kind
// and plural of its own in runobjects.CustomResourceGroup) with
// versions v1 (stored) and v2 (served), both of the schema
// spec.{color,size,items,tags},
// converted by apiVersion alone (strategy None).
func WidgetCRD(f *harness.Framework) *apiextensionsv1.CustomResourceDefinition {
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

// CreateCRD creates crd, deleted after the case, and waits until both
// versions serve lists.
func CreateCRD(ctx context.Context, f *harness.Framework, crd *apiextensionsv1.CustomResourceDefinition) error {
	client, err := apiextensionsclient.NewForConfig(f.Config)
	if err != nil {
		return err
	}
	api := client.ApiextensionsV1().CustomResourceDefinitions()
	if _, err := api.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create CustomResourceDefinition %s: %w", crd.Name, err)
	}
	ginkgo.DeferCleanup(IgnoreNotFound, api.Delete, crd.Name)
	for _, v := range crd.Spec.Versions {
		res := Widgets(f, crd, v.Name)
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

// Widgets is the case's namespace's custom resources of crd in version.
func Widgets(f *harness.Framework, crd *apiextensionsv1.CustomResourceDefinition, version string) dynamic.ResourceInterface {
	return f.Dynamic.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}).Namespace(f.Namespace)
}

// Widget is a custom resource of crd in version with the given spec.
func Widget(f *harness.Framework, crd *apiextensionsv1.CustomResourceDefinition, version, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": crd.Spec.Group + "/" + version, "kind": crd.Spec.Names.Kind,
		"metadata": map[string]any{"name": name, "namespace": f.Namespace},
		"spec":     spec,
	}}
}

func WidgetRules(crd *apiextensionsv1.CustomResourceDefinition, version string) []admissionregistrationv1.RuleWithOperations {
	return []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{crd.Spec.Group}, APIVersions: []string{version}, Resources: []string{crd.Spec.Names.Plural},
			Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
	}}
}
