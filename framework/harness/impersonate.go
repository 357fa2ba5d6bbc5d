package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/results"
)

// Impersonate returns a copy of the case's client config acting as the
// registered identity name; caseValue is the value of its per-case extra
// key, if it has one. Specs impersonate through it alone, so the rights
// the run asks for (internal/access, derived from spec.Impersonates) are
// the ones its cases use. If the run's user may not impersonate the
// identity (an optional one it was not granted, or a service account
// missing a right), the case is reported not supported, naming the rights.
func (f *Framework) Impersonate(ctx context.Context, name identity.Name, caseValue string) (*rest.Config, error) {
	if !slices.Contains(f.Spec.Impersonates, name) {
		return nil, fmt.Errorf("spec %s impersonates %s without declaring it in spec.Impersonates", f.Spec.ShortName, name)
	}
	id, err := identity.Lookup(name)
	if err != nil {
		return nil, err
	}
	denied, err := f.Env.impersonationDenied(ctx, f.Client, id)
	if err != nil {
		return nil, fmt.Errorf("check the right to impersonate %s: %w", id, err)
	}
	if len(denied) > 0 {
		ginkgo.Skip(results.NotSupportedPrefix + "impersonates " + id.String() + " (" + id.Why + "); the run's user may not " +
			strings.Join(denied, ", ") + " (grant it to run this case; run --plan lists every right)")
	}
	extra := map[string][]string{}
	for k, v := range id.Extra {
		if len(v) == 0 {
			if caseValue == "" {
				return nil, fmt.Errorf("identity %s takes a per-case value of extra %s", name, k)
			}
			v = []string{caseValue}
		}
		extra[k] = v
	}
	rc := rest.CopyConfig(f.Config)
	rc.Impersonate = rest.ImpersonationConfig{UserName: id.User, UID: id.UID, Groups: id.Group, Extra: extra}
	return rc, nil
}

// impersonationDenied returns the rights to impersonate id the run's user
// lacks, asking the cluster once per process and identity.
func (e *Env) impersonationDenied(ctx context.Context, client kubernetes.Interface, id identity.Identity) ([]string, error) {
	if v, ok := e.impersonation.Load(id.Name); ok {
		return v.([]string), nil
	}
	denied, err := e.rights.Impersonation(ctx, client, id)
	if err != nil {
		return nil, err
	}
	e.impersonation.Store(id.Name, denied)
	return denied, nil
}
