package kubeconfig

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Inventory is every object of a cluster by identity
// ("resource.group namespace/name"), for checking that a run left the
// cluster as it found it.
type Inventory map[string]struct{}

// volatile resources change on their own (events come and go).
var volatile = map[string]bool{"events": true, "events.events.k8s.io": true}

// TakeInventory lists every object of every listable resource, in the
// preferred version of each group.
func TakeInventory(ctx context.Context, cfg *rest.Config) (Inventory, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{} // deprecated kinds are listed on purpose
	cfg.QPS, cfg.Burst = 100, 100
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := disco.ServerPreferredResources()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	inv := Inventory{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !contains(r.Verbs, "list") {
				continue
			}
			key := r.Name
			if gv.Group != "" {
				key += "." + gv.Group
			}
			if volatile[key] {
				continue
			}
			objs, err := dyn.Resource(gv.WithResource(r.Name)).List(ctx, metav1.ListOptions{})
			if apierrors.IsNotFound(err) {
				// Discovery still lists the kind of a CRD just deleted (a
				// run's own, at its cleanup) for a moment after its objects
				// are gone: none are left to count. The CRD itself is
				// counted under customresourcedefinitions while it exists.
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", key, err)
			}
			for _, o := range objs.Items {
				id := key + " " + o.GetName()
				if ns := o.GetNamespace(); ns != "" {
					id = key + " " + ns + "/" + o.GetName()
				}
				inv[id] = struct{}{}
			}
		}
	}
	return inv, nil
}

// Diff returns what after has that i lacks (added) and the reverse.
func (i Inventory) Diff(after Inventory) (added, removed []string) {
	for k := range after {
		if _, ok := i[k]; !ok {
			added = append(added, k)
		}
	}
	for k := range i {
		if _, ok := after[k]; !ok {
			removed = append(removed, k)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
