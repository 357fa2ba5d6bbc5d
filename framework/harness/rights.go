package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/access"
	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

// skipWithoutRights reports the case not supported when the run's user
// lacks a right that its spec alone needs (access.OfSpec: a subresource,
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
	own := access.OfSpec(access.Needed(false, []spec.Spec{s}), s.ShortName)
	if len(own) == 0 {
		e.specRights.Store(s.ShortName, []string(nil))
		return nil, nil
	}
	client, err := kubernetes.NewForConfig(e.Cluster.RESTConfig())
	if err != nil {
		return nil, err
	}
	denied, err := access.Check(ctx, client, own, "")
	if err != nil {
		return nil, err
	}
	e.specRights.Store(s.ShortName, denied)
	return denied, nil
}
