package access

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Rights answers harness.Rights, which the engine hands to every
// environment it boots or attaches: the public harness asks through it
// which rights the run's user lacks, since it may not import this package.
type Rights struct{}

// OfSpec returns the rights only s needs that the user lacks; a spec that
// needs none asks the cluster nothing.
func (Rights) OfSpec(ctx context.Context, client kubernetes.Interface, s spec.Spec) ([]string, error) {
	own := OfSpec(Needed(false, []spec.Spec{s}), s.ShortName)
	if len(own) == 0 {
		return nil, nil
	}
	return Check(ctx, client, own, "")
}

// Impersonation returns the rights to impersonate id that the user lacks.
func (Rights) Impersonation(ctx context.Context, client kubernetes.Interface, id identity.Identity) ([]string, error) {
	return Check(ctx, client, Impersonation(id), "")
}

// ReferenceInitializers returns what of ReferenceInitializersAccess the
// user lacks.
func (Rights) ReferenceInitializers(ctx context.Context, client kubernetes.Interface) ([]string, error) {
	return Check(ctx, client, ReferenceInitializersAccess(), "")
}
