package install

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/runobjects"
	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// Sweep deletes what an installation or the specs left behind with labels
// matching selector (a killed run): InitializerConfigurations, then the
// webhook configuration, the policy, the CRD, the RBAC and the namespace.
// The kinds are runobjects' one list (ReferenceInitializerKinds); kinds
// the cluster does not serve are skipped.
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
	for _, k := range runobjects.ReferenceInitializerKinds() {
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
