package kubeconfig

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
)

// Plan is what a run creates in an existing cluster, one line per kind of
// object. Every object carries the label admission-conformance.io/run=<run
// id> (`run-conformance cleanup` finds leftovers by it).
var Plan = []string{
	"namespaces: one per spec case (generated names from the spec's short name), a few specs add one or two more; deleted after each case",
	"mutatingwebhookconfigurations / validatingwebhookconfigurations: named <spec namespace>-<name>; every hook scoped by namespaceSelector to the spec's own namespace(s); deleted after each case",
	"validatingadmissionpolicies / mutatingadmissionpolicies and their bindings: bindings scoped by namespaceSelector to the spec's namespace; deleted after each case",
	"inside the spec namespaces only: configmaps, pods (never pulled or scheduling-gated), services, serviceaccounts, deployments (and their status and scale), horizontalpodautoscalers, limitranges, resourcequotas, persistentvolumeclaims, and a role and rolebinding granting an impersonated test user configmap creates there",
	"requests as the users, groups, uids and extras of framework/identity the selected specs impersonate, each named (run --plan lists them); no other identity",
	"customresourcedefinitions: one per CustomResourceAdmission / CustomResourceMutatingPolicy case, of the group crd.admission-conformance.io alone (a kind of the case's own), labelled with the run; deleted after each case, with its custom resources",
	"runtimeclasses: one for KubeletAdmitsUpToAllocatable's init-container case (handler runc, a pod overhead the kubelet counts), labelled with the run; deleted after the case",
	"dry-run creates of a priorityclass (nothing stored) to check what cluster-scoped requests webhooks receive",
	"nothing else: no cluster roles or bindings, no changes to existing objects",
}

// Access is one permission a run needs (internal/access).
type Access = access.Access

// NeededAccess lists the permissions a run of every registered spec uses
// (access.Needed): relay adds the relay's port-forward.
func NeededAccess(relay bool) []Access { return access.Needed(relay, nil) }

// preflight logs the plan and checks, with SelfSubjectAccessReviews, that
// the kubeconfig's user may do what the run does. A missing permission is
// an error before anything is created.
func (p *Provider) preflight(ctx context.Context, cfg *rest.Config) error {
	for _, line := range Plan {
		p.logger.Info("preflight: will create " + line)
	}
	switch {
	case p.served != nil:
		p.logger.Info("preflight: this run is in the cluster: the apiservers will call the fake webhooks at " + p.served.advertise +
			" (" + strings.Join(p.served.names, ", ") + ")")
	case p.pluginImage != "":
		p.logger.Info("preflight: will create namespace admission-conformance-relay-<random> holding pod and service " + relayName +
			" (image " + p.pluginImage + "): the apiservers call the fake webhooks through it; deleted at the end")
	case p.webhookHost == "":
		p.logger.Info("preflight: no --webhook-host or --plugin-image: specs that need the harness's fake webhooks will be reported not-supported")
	default:
		p.logger.Info("preflight: the cluster's apiservers will call the fake webhooks at " + p.webhookHost)
	}
	if p.noPreflight {
		return nil
	}
	fast := rest.CopyConfig(cfg)
	fast.QPS, fast.Burst = 200, 200 // ~100 reviews; client-go's default 5/s takes 20 s
	client, err := kubernetes.NewForConfig(fast)
	if err != nil {
		return err
	}
	needed := access.Needed(p.pluginImage != "", p.specs)
	denied, err := CheckAccess(ctx, client, needed, PreflightNamespace)
	if err != nil {
		return fmt.Errorf("preflight RBAC check: %w", err)
	}
	lacking := 0
	if p.served != nil {
		// The in-cluster pod: its service account may be the user's own
		// (--service-account), which holds what the user granted. A right
		// only some specs need makes their cases not supported (the
		// harness checks each spec's rights as a case starts); the
		// client's preflight said so already.
		everyRun, bySpec := access.Lacking(needed, denied)
		for _, name := range access.SpecNames(bySpec) {
			p.logger.Info("preflight: not supported: " + name + ": the run's service account may not " + strings.Join(bySpec[name], ", "))
		}
		denied, lacking = everyRun, len(bySpec)
	}
	if len(denied) > 0 {
		return fmt.Errorf("preflight: the kubeconfig's user may not %s: grant these (or use an admin kubeconfig)", strings.Join(denied, ", "))
	}
	if lacking > 0 {
		p.logger.Info(fmt.Sprintf("preflight: RBAC allows every operation all runs use; %d specs lack one (not supported)", lacking))
	} else {
		p.logger.Info(fmt.Sprintf("preflight: RBAC allows all %d operations the run uses", len(needed)))
	}
	return p.offerOptional(ctx, client)
}

// offerOptional says, for each identity outside the harness's own that a
// selected spec impersonates, which specs want it and why, and whether the
// user may impersonate it; without the right those cases are reported not
// supported, so it never fails the preflight.
func (p *Provider) offerOptional(ctx context.Context, client kubernetes.Interface) error {
	specs := p.specs
	if specs == nil {
		specs = spec.All()
	}
	_, optional := access.ForSpecs(specs)
	for _, o := range optional {
		denied, err := CheckAccess(ctx, client, o.Access, "")
		if err != nil {
			return fmt.Errorf("preflight RBAC check: %w", err)
		}
		what := "optional: " + strings.Join(o.Specs, ", ") + " impersonate " + o.Identity.String() + " (" + o.Identity.Why + "): "
		if len(denied) == 0 {
			p.logger.Info("preflight: " + what + "allowed")
			continue
		}
		p.logger.Info("preflight: " + what + "the user may not " + strings.Join(denied, ", ") + ": the cases that impersonate it will be reported not supported")
	}
	return nil
}

// PreflightNamespace is where namespaced permissions are checked: a
// namespace that does not exist, as the spec namespaces do not yet.
const PreflightNamespace = "admission-conformance-preflight"

// CheckAccess returns the operations of needed the client's user is denied
// (access.Check).
func CheckAccess(ctx context.Context, client kubernetes.Interface, needed []Access, namespace string) ([]string, error) {
	return access.Check(ctx, client, needed, namespace)
}
