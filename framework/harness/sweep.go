package harness

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/runobjects"
)

// Sweep deletes everything labelled with the run ID (or, with runID "", every
// run's) that specs may have left: webhook configurations first, so nothing
// the harness registered can get in the way of other deletions, then
// namespaces. It is the safety net behind each spec's DeferCleanup, and what
// a cleanup after a killed run calls.
func Sweep(ctx context.Context, config *rest.Config, runID string) error {
	return sweep(ctx, config, runID, true, true)
}

// sweep is Sweep, without the reference initializers' objects unless
// initializers: a run that never installed them has none of its own there,
// and may lack the permissions to look (an in-cluster run's service account
// holds exactly the preflight's). Without namespaces it leaves the
// namespaces, which go with a disposable cluster (releaseNamespace).
func sweep(ctx context.Context, config *rest.Config, runID string, initializers, namespaces bool) error {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	selector := RunLabel
	if runID != "" {
		selector = RunLabel + "=" + runID
	}
	list := metav1.ListOptions{LabelSelector: selector}
	del := metav1.DeleteOptions{}
	var errs []error
	collect := func(what string, err error) {
		// Not found (or no match) where the cluster does not serve a kind.
		if err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			errs = append(errs, fmt.Errorf("sweep %s: %w", what, err))
		}
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	for _, k := range runobjects.Kinds() {
		if k.Resource == runobjects.Namespaces {
			continue // below, after the reference initializers
		}
		collect(k.What, dyn.Resource(k.Resource).DeleteCollection(ctx, del, list))
	}
	if initializers {
		collect("reference initializers", sweepReferenceInitializers(ctx, config, selector))
	}
	if !namespaces {
		return errors.Join(errs...)
	}
	all, err := client.CoreV1().Namespaces().List(ctx, list)
	collect("namespaces", err)
	if err == nil {
		for _, ns := range all.Items {
			if ns.DeletionTimestamp != nil {
				// Its spec deleted it; asking again costs a request
				// each, and a run leaves hundreds terminating.
				continue
			}
			collect("namespace "+ns.Name, client.CoreV1().Namespaces().Delete(ctx, ns.Name, del))
		}
	}
	return errors.Join(errs...)
}
