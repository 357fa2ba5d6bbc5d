package mutatingpolicy

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

// Object is what a Client handles.
type Object interface {
	MutatingAdmissionPolicy | MutatingAdmissionPolicyBinding
}

// Client reads and writes one of the two resources, with the methods (and
// signatures) of client-go's typed clients that specs use.
type Client[T Object] struct {
	resource dynamic.ResourceInterface
	kind     string
}

// PolicyClient is the client of MutatingAdmissionPolicies.
func PolicyClient(d dynamic.Interface) *Client[MutatingAdmissionPolicy] {
	return &Client[MutatingAdmissionPolicy]{resource: d.Resource(Policies), kind: "MutatingAdmissionPolicy"}
}

// BindingClient is the client of MutatingAdmissionPolicyBindings.
func BindingClient(d dynamic.Interface) *Client[MutatingAdmissionPolicyBinding] {
	return &Client[MutatingAdmissionPolicyBinding]{resource: d.Resource(Bindings), kind: "MutatingAdmissionPolicyBinding"}
}

// Create creates obj. Unknown fields are errors (field validation Strict
// unless opts asks otherwise), so a field these types got wrong cannot be
// dropped silently.
func (c *Client[T]) Create(ctx context.Context, obj *T, opts metav1.CreateOptions) (*T, error) {
	u, err := c.toUnstructured(obj)
	if err != nil {
		return nil, err
	}
	if opts.FieldValidation == "" {
		opts.FieldValidation = metav1.FieldValidationStrict
	}
	out, err := c.resource.Create(ctx, u, opts)
	return c.fromUnstructured(out, err)
}

// Update replaces obj, as Create does.
func (c *Client[T]) Update(ctx context.Context, obj *T, opts metav1.UpdateOptions) (*T, error) {
	u, err := c.toUnstructured(obj)
	if err != nil {
		return nil, err
	}
	if opts.FieldValidation == "" {
		opts.FieldValidation = metav1.FieldValidationStrict
	}
	out, err := c.resource.Update(ctx, u, opts)
	return c.fromUnstructured(out, err)
}

// Get reads the object called name.
func (c *Client[T]) Get(ctx context.Context, name string, opts metav1.GetOptions) (*T, error) {
	return c.fromUnstructured(c.resource.Get(ctx, name, opts))
}

// Delete deletes the object called name.
func (c *Client[T]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return c.resource.Delete(ctx, name, opts)
}

// DeleteCollection deletes the objects list selects.
func (c *Client[T]) DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, list metav1.ListOptions) error {
	return c.resource.DeleteCollection(ctx, opts, list)
}

func (c *Client[T]) toUnstructured(obj *T) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.kind, err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(GroupVersion.String())
	u.SetKind(c.kind)
	return u, nil
}

func (c *Client[T]) fromUnstructured(u *unstructured.Unstructured, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
		return nil, fmt.Errorf("%s: %w", c.kind, err)
	}
	return out, nil
}

// Served says whether the cluster serves admissionregistration.k8s.io/v1
// MutatingAdmissionPolicies and their bindings: off before 1.36 (beta, and
// only under another version, from 1.34), on from 1.36 unless switched off.
func Served(d discovery.DiscoveryInterface) (bool, error) {
	return servesAll(d, Policies, Bindings)
}

func servesAll(d discovery.DiscoveryInterface, resources ...schema.GroupVersionResource) (bool, error) {
	for _, r := range resources {
		list, err := d.ServerResourcesForGroupVersion(r.GroupVersion().String())
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("discover %s: %w", r.GroupVersion(), err)
		}
		found := false
		for _, api := range list.APIResources {
			if api.Name == r.Resource {
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}
