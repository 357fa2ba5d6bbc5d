package incluster

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/clusterrun"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

// accountPreflight is the preflight of a run under the user's service
// account (--service-account): it prints what the run will create (no
// namespace, account, role or binding), then checks the user's and the
// account's rights (clusterrun.CheckAccount). A right every run needs that
// the account lacks is an error before anything is created; a right only
// some specs need makes those specs not supported, each named with what it
// lacks (the pod finds the same and reports their cases so).
func (c *runClient) accountPreflight(ctx context.Context, r *clusterrun.Run) error {
	a, ns := *r.Account(), r.NamespaceName()
	c.logger.Info(fmt.Sprintf("preflight: will create in namespace %s (service account %s's; neither created nor deleted) service %s "+
		"(the apiservers call the fake webhooks there), config map %s and job %s (image %s), its pod running as service account %s; "+
		"no namespace, service account, role or binding; all labelled %s, deleted at the end", ns, a, clusterrun.ServiceName,
		clusterrun.OptionsName, clusterrun.JobName, r.Image, a, r.Selector()))
	for _, line := range kubeconfig.Plan {
		c.logger.Info("preflight: the run's pod will create " + line)
	}
	rights, err := clusterrun.CheckAccount(ctx, c.client, r)
	if err != nil {
		return err
	}
	if len(rights.EveryRun) > 0 {
		return fmt.Errorf("preflight: service account %s may not %s, which every run needs: grant them (run --plan --in-cluster prints them as a ClusterRole); nothing was created",
			a, strings.Join(rights.EveryRun, ", "))
	}
	for _, name := range access.SpecNames(rights.BySpec) {
		c.logger.Info(fmt.Sprintf("preflight: not supported: %s: service account %s may not %s", name, a, strings.Join(rights.BySpec[name], ", ")))
	}
	for _, o := range rights.Optional {
		what := "optional: " + strings.Join(o.Specs, ", ") + " impersonate " + o.Identity.String() + " (" + o.Identity.Why + "): "
		if len(o.Denied) > 0 {
			c.logger.Info("preflight: " + what + "service account " + a.String() + " may not " + strings.Join(o.Denied, ", ") +
				": the cases that impersonate it will be reported not supported")
			continue
		}
		c.logger.Info("preflight: " + what + "service account " + a.String() + " may")
	}
	c.logger.Info(fmt.Sprintf("preflight: service account %s holds every right all runs need; %d specs not supported for lack of a right",
		a, len(rights.BySpec)))
	return nil
}

// accountSweep is the client's sweep of what a run under the user's
// service account left: the pod sweeps as it ends, and the user need not
// hold the rights to (nothing granted them), so a refusal is a note
// naming cleanup, not a failed tear-down.
func (c *runClient) accountSweep(sweep func(context.Context, string) error) func(context.Context, string) error {
	return func(ctx context.Context, id string) error {
		err := sweep(ctx, id)
		// IsForbidden finds a refusal anywhere in the sweep's joined errors.
		if apierrors.IsForbidden(err) {
			first, _, _ := strings.Cut(err.Error(), "\n")
			fmt.Fprintf(c.out, "note: the kubeconfig's user may not sweep what run %s's specs left (%s); its pod swept them as it ended; "+
				"if it was killed, run 'run-conformance cleanup %s --run %s' as a user who may\n", id, first, c.where, id)
			return nil
		}
		return err
	}
}
