package install

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// Sweep deletes what an installation or the specs left behind with labels
// matching selector (a killed run): InitializerConfigurations, then the
// webhook configuration, the policy, the CRD, the RBAC and the namespace.
// The kinds are Kinds (the one list, which framework/runobjects gives
// cleanup as ReferenceInitializerKinds); kinds the cluster does not serve
// are skipped.
func Sweep(ctx context.Context, admin *rest.Config, selector string) error {
	client, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(admin)
	if err != nil {
		return err
	}
	list := metav1.ListOptions{LabelSelector: selector}
	del := metav1.DeleteOptions{}
	var errs []error
	collect := func(what string, err error) {
		if err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			errs = append(errs, fmt.Errorf("sweep %s: %w", what, err))
		}
	}
	for _, k := range Kinds() {
		collect(k.What, dyn.Resource(k.Resource).DeleteCollection(ctx, del, list))
	}
	if ns, err := client.CoreV1().Namespaces().Get(ctx, v1alpha1.Namespace, metav1.GetOptions{}); err == nil {
		if matches(ns.Labels, selector) {
			collect("namespace", client.CoreV1().Namespaces().Delete(ctx, ns.Name, del))
		}
	} else {
		collect("namespace", err)
	}
	return errors.Join(errs...)
}

// matches reports whether set satisfies selector.
func matches(set map[string]string, selector string) bool {
	s, err := labels.Parse(selector)
	return err == nil && s.Matches(labels.Set(set))
}

// Kind is one cluster-level kind an installation creates and labels.
type Kind struct {
	Resource schema.GroupVersionResource
	// What names the kind in messages: plural, lower case, spaced.
	What string
}

// kinds are in the order Sweep deletes them: the configurations first,
// RBAC last; their namespace, one of a fixed name, goes after them.
var kinds = []Kind{
	{v1alpha1.GroupVersionResource, "initializer configurations"},
	{admission("mutatingwebhookconfigurations"), "mutating webhook configurations"},
	{admission("validatingadmissionpolicybindings"), "validating admission policy bindings"},
	{admission("validatingadmissionpolicies"), "validating admission policies"},
	{schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, "custom resource definitions"},
	{rbac("clusterrolebindings"), "cluster role bindings"},
	{rbac("clusterroles"), "cluster roles"},
}

// Kinds returns the cluster-level kinds an installation creates and labels,
// in the order Sweep deletes them.
func Kinds() []Kind { return slices.Clone(kinds) }

func admission(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: resource}
}

func rbac(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}
}
