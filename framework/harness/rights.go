package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// Rights tells which rights the run's user lacks, asking the cluster
// through client (internal/access, with SelfSubjectAccessReviews). The
// engine hands it in (Engine.Rights), since harness
// imports nothing internal; the Env asks it once per process for each
// spec and identity. Each method returns the denied rights as the
// preflight names them ("create pods/exec"), none if the user holds all.
type Rights interface {
	// OfSpec: the rights only spec s needs (a subresource, an
	// impersonated identity, ...).
	OfSpec(ctx context.Context, client kubernetes.Interface, s spec.Spec) ([]string, error)
	// Impersonation: the rights to impersonate id.
	Impersonation(ctx context.Context, client kubernetes.Interface, id identity.Identity) ([]string, error)
	// ReferenceInitializers: what installing the reference initializers
	// takes beyond a run's own rights.
	ReferenceInitializers(ctx context.Context, client kubernetes.Interface) ([]string, error)
}

// skipWithoutRights reports the case not supported when the run's user
// lacks a right that its spec alone needs (Rights.OfSpec: a subresource,
// an impersonated identity, ...). The preflight lets such a run start only
// under a service account the user manages (--service-account), which
// holds what the user granted; everywhere else the preflight required
// every right, so nothing is skipped here.
func (e *Env) skipWithoutRights(ctx context.Context, s spec.Spec) error {
	denied, err := e.rightsDenied(ctx, s)
	if err != nil {
		return fmt.Errorf("check the rights of spec %s: %w", s.ShortName, err)
	}
	if len(denied) > 0 {
		ginkgo.Skip(results.NotSupportedPrefix + "the run's user may not " + strings.Join(denied, ", ") +
			" (grant it to run this spec; run --plan lists every right)")
	}
	return nil
}

// rightsDenied returns the rights only s needs that the run's user lacks,
// asking the cluster once per process and spec.
func (e *Env) rightsDenied(ctx context.Context, s spec.Spec) ([]string, error) {
	if v, ok := e.specRights.Load(s.ShortName); ok {
		return v.([]string), nil
	}
	client, err := kubernetes.NewForConfig(e.Cluster.RESTConfig())
	if err != nil {
		return nil, err
	}
	denied, err := e.rights.OfSpec(ctx, client, s)
	if err != nil {
		return nil, err
	}
	e.specRights.Store(s.ShortName, denied)
	return denied, nil
}
