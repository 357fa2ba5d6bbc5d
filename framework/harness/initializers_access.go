package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/access"
	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/reference/initializers/install"
)

// ReferenceInitializersAccess is what installing the reference initializers
// takes beyond a run's own rights: creating and deleting their cluster
// roles and bindings, holding every right those roles grant, and
// impersonating their poller and controller users. A user the cluster
// refuses any of them runs without them: their cases are not supported.
func ReferenceInitializersAccess() []access.Access {
	why := "installing the reference initializers"
	var out []access.Access
	for _, r := range []string{"clusterroles", "clusterrolebindings"} {
		for _, v := range []string{"create", "delete"} {
			out = append(out, access.Access{Verb: v, Group: "rbac.authorization.k8s.io", Resource: r, Why: why})
		}
	}
	for _, u := range install.ImpersonatedUsers() {
		out = append(out, access.Access{Verb: "impersonate", Resource: "users", Name: u, Why: why})
	}
	for _, role := range install.ClusterRoles() {
		for _, rule := range role.Rules {
			for _, g := range rule.APIGroups {
				for _, r := range rule.Resources {
					resource, sub, _ := strings.Cut(r, "/")
					for _, v := range rule.Verbs {
						out = access.Merge(out, access.Access{Verb: v, Group: g, Resource: resource, Subresource: sub, Why: why})
					}
				}
			}
		}
	}
	return out
}

// ReferenceInitializersInstallation is installing the reference
// initializers for those of specs that need them, as `run --plan` and the
// docs list it; false if none does.
func ReferenceInitializersInstallation(specs []spec.Spec) (access.Installation, bool) {
	var names []string
	for _, s := range specs {
		if slices.Contains(s.Features, features.ReferenceInitializers) {
			names = append(names, s.ShortName)
		}
	}
	return access.Installation{What: "the reference initializers", Specs: names, Access: ReferenceInitializersAccess()}, len(names) > 0
}

// mayInstallReferenceInitializers asks the cluster whether the run's user
// holds ReferenceInitializersAccess; if not, it records why the feature is
// not installed and returns false.
func (e *Env) mayInstallReferenceInitializers(ctx context.Context) (bool, error) {
	client, err := kubernetes.NewForConfig(e.Cluster.RESTConfig())
	if err != nil {
		return false, err
	}
	denied, err := access.Check(ctx, client, ReferenceInitializersAccess(), "")
	if err != nil {
		return false, fmt.Errorf("check the rights to install the reference initializers: %w", err)
	}
	if len(denied) == 0 {
		return true, nil
	}
	e.notInstalled(features.ReferenceInitializers, "the run's user may not "+strings.Join(denied, ", ")+
		", which installing the reference initializers takes (grant them, or claim --supported-features "+string(features.ReferenceInitializers)+
		" where they are installed already)")
	return false, nil
}

// notInstalled records why the harness did not install feature f itself,
// for the cases that need it, and says so.
func (e *Env) notInstalled(f features.Name, why string) {
	if e.notInstalledWhy == nil {
		e.notInstalledWhy = map[features.Name]string{}
	}
	e.notInstalledWhy[f] = why
	e.Logger.Info(fmt.Sprintf("%s not installed: %s", f, why))
}

// notDeclaredReason is why the run lacks feature f: the harness did not
// install it, or the cluster does not declare it ("" if neither can say).
func (e *Env) notDeclaredReason(f features.Name) string {
	if why := e.notInstalledWhy[f]; why != "" {
		return why
	}
	return cluster.NotDeclaredReason(e.Cluster, f)
}
