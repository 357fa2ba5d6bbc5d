package kubeconfig

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Plan is what a run creates in an existing cluster, one line per kind of
// object. Every object carries the label admission-conformance.io/run=<run
// id> (`run-conformance cleanup` finds leftovers by it).
var Plan = []string{
	"namespaces: one per spec case (generated names from the spec's short name), a few specs add one or two more; deleted after each case",
	"mutatingwebhookconfigurations / validatingwebhookconfigurations: named <spec namespace>-<name>; every hook scoped by namespaceSelector to the spec's own namespace(s); deleted after each case",
	"validatingadmissionpolicies / mutatingadmissionpolicies and their bindings: bindings scoped by namespaceSelector to the spec's namespace; deleted after each case",
	"inside the spec namespaces only: configmaps, pods (never pulled or scheduling-gated), services, serviceaccounts, deployments (and their status and scale), horizontalpodautoscalers, limitranges, resourcequotas, persistentvolumeclaims, and a role and rolebinding granting an impersonated test user configmap creates there",
	"requests as an impersonated user (ac-impersonated-<spec namespace>, with a uid, a group and an extra) to check the userInfo webhooks receive",
	"nothing else: no CRDs, no cluster roles or bindings, no changes to existing objects",
}

// access is one permission the run needs.
type access struct {
	verb, group, resource, subresource string
	namespaced                         bool
}

// neededAccess lists the permissions the specs use (namespaced ones are checked
// in a namespace that does not exist yet, as the spec namespaces are).
func neededAccess(relay bool) []access {
	var out []access
	add := func(group, resource string, namespaced bool, verbs ...string) {
		for _, v := range verbs {
			out = append(out, access{verb: v, group: group, resource: resource, namespaced: namespaced})
		}
	}
	add("", "namespaces", false, "create", "delete", "list", "get")
	for _, r := range []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations",
		"validatingadmissionpolicies", "validatingadmissionpolicybindings",
		"mutatingadmissionpolicies", "mutatingadmissionpolicybindings"} {
		add("admissionregistration.k8s.io", r, false, "create", "update", "patch", "delete", "deletecollection", "list", "get")
	}
	for _, r := range []string{"configmaps", "pods", "services", "serviceaccounts", "limitranges", "resourcequotas", "persistentvolumeclaims"} {
		add("", r, true, "create", "update", "patch", "delete", "get", "list")
	}
	add("apps", "deployments", true, "create", "update", "delete", "get")
	for _, sub := range []string{"status", "scale"} {
		out = append(out, access{verb: "update", group: "apps", resource: "deployments", subresource: sub, namespaced: true})
	}
	add("rbac.authorization.k8s.io", "roles", true, "create", "delete")
	add("rbac.authorization.k8s.io", "rolebindings", true, "create", "delete")
	add("", "users", false, "impersonate")
	add("", "groups", false, "impersonate")
	add("authentication.k8s.io", "uids", false, "impersonate")
	out = append(out, access{verb: "impersonate", group: "authentication.k8s.io", resource: "userextras", subresource: "scopes"})
	add("autoscaling", "horizontalpodautoscalers", true, "create", "delete")
	out = append(out, access{verb: "create", resource: "pods", subresource: "exec", namespaced: true})
	if relay {
		out = append(out, access{verb: "create", resource: "pods", subresource: "portforward", namespaced: true})
	}
	add("", "nodes", false, "list", "get")
	return out
}

// preflight logs the plan and checks, with SelfSubjectAccessReviews, that
// the kubeconfig's user may do what the run does. A missing permission is
// an error before anything is created.
func (p *Provider) preflight(ctx context.Context, cfg *rest.Config) error {
	for _, line := range Plan {
		p.logger.Info("preflight: will create " + line)
	}
	switch {
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
	needed := neededAccess(p.pluginImage != "")
	denied, err := checkAccess(ctx, client, needed)
	if err != nil {
		return fmt.Errorf("preflight RBAC check: %w", err)
	}
	if len(denied) > 0 {
		return fmt.Errorf("preflight: the kubeconfig's user may not %s: grant these (or use an admin kubeconfig)", strings.Join(denied, ", "))
	}
	p.logger.Info(fmt.Sprintf("preflight: RBAC allows all %d operations the run uses", len(needed)))
	return nil
}

// checkAccess returns the operations of needed the client's user is denied.
func checkAccess(ctx context.Context, client kubernetes.Interface, needed []access) ([]string, error) {
	var denied []string
	for _, a := range needed {
		attrs := &authorizationv1.ResourceAttributes{Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource}
		if a.namespaced {
			attrs.Namespace = "admission-conformance-preflight"
		}
		review, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		if !review.Status.Allowed {
			what := a.resource
			if a.subresource != "" {
				what += "/" + a.subresource
			}
			if a.group != "" {
				what += "." + a.group
			}
			denied = append(denied, a.verb+" "+what)
		}
	}
	return denied, nil
}
