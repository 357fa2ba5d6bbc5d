package harness

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/features"
)

// mayInstallReferenceInitializers asks the cluster whether the run's user
// holds what installing the reference initializers takes
// (Rights.ReferenceInitializers); if not, it records why the feature is
// not installed and returns false.
func (e *Env) mayInstallReferenceInitializers(ctx context.Context) (bool, error) {
	client, err := kubernetes.NewForConfig(e.Cluster.RESTConfig())
	if err != nil {
		return false, err
	}
	denied, err := e.rights.ReferenceInitializers(ctx, client)
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
