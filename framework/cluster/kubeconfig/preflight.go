package kubeconfig

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/runobjects"
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
	"customresourcedefinitions: one per CustomResourceAdmission / CustomResourceMutatingPolicy case, of the group crd.admission-conformance.io alone (a kind of the case's own), labelled with the run; deleted after each case, with its custom resources",
	"dry-run creates of a priorityclass (nothing stored) to check what cluster-scoped requests webhooks receive",
	"nothing else: no cluster roles or bindings, no changes to existing objects",
}

// Access is one permission a run needs.
type Access struct {
	Verb, Group, Resource, Subresource string
	// Namespaced: the permission is needed in namespaces the run creates
	// (the spec namespaces), so it is checked in one that does not exist
	// yet, and granted cluster-wide.
	Namespaced bool
}

// String is the operation as the preflight names it: "create
// pods/exec", "create mutatingwebhookconfigurations.admissionregistration.k8s.io".
func (a Access) String() string {
	what := a.Resource
	if a.Subresource != "" {
		what += "/" + a.Subresource
	}
	if a.Group != "" {
		what += "." + a.Group
	}
	return a.Verb + " " + what
}

// NeededAccess lists the permissions the specs use: the one source of what
// the preflight checks and of the ClusterRole an in-cluster run's service
// account gets (framework/incluster). relay adds what the relay pod needs
// (the port-forward).
func NeededAccess(relay bool) []Access {
	var out []Access
	add := func(group, resource string, namespaced bool, verbs ...string) {
		for _, v := range verbs {
			out = append(out, Access{Verb: v, Group: group, Resource: resource, Namespaced: namespaced})
		}
	}
	// update and patch: specs label their own namespaces (Pod Security).
	add("", "namespaces", false, "create", "delete", "list", "get", "update", "patch")
	for _, r := range runobjects.AdmissionResources() {
		add("admissionregistration.k8s.io", r, false, "create", "update", "patch", "delete", "deletecollection", "list", "get")
	}
	for _, r := range []string{"configmaps", "pods", "services", "serviceaccounts", "limitranges", "resourcequotas", "persistentvolumeclaims", "secrets"} {
		add("", r, true, "create", "update", "patch", "delete", "get", "list")
	}
	add("", "configmaps", true, "deletecollection")
	// Node admission and scheduling specs watch their pods' decisions and
	// read the kubelet's events about them.
	add("", "pods", true, "watch", "deletecollection")
	add("", "events", true, "list")
	// PolicyCELVariables: an event the harness itself creates is denied by
	// a policy (RBAC must let it through to admission first), and
	// SubjectAccessReviews tell when every apiserver's RBAC has a new
	// RoleBinding.
	add("", "events", true, "create")
	add("authorization.k8s.io", "subjectaccessreviews", false, "create")
	// The removed v1alpha1 initializers API is probed for its 404, which
	// RBAC would otherwise answer with a 403 first.
	add("admissionregistration.k8s.io", "initializerconfigurations", false, "list")
	// A ValidatingAdmissionPolicy whose paramKind names no resource of
	// this group (PolicyFailurePolicy): its creator must be allowed to get
	// every resource of the paramKind's group, which exists nowhere.
	add("admission-conformance.io", "*", false, "get")
	add("apps", "deployments", true, "create", "update", "delete", "get")
	// Subresources the specs write: a status update (services, pods), a
	// binding (a gated pod bound by hand).
	for _, r := range []string{"services", "pods"} {
		out = append(out, Access{Verb: "update", Resource: r, Subresource: "status", Namespaced: true})
	}
	out = append(out, Access{Verb: "create", Resource: "pods", Subresource: "binding", Namespaced: true})
	for _, sub := range []string{"status", "scale"} {
		out = append(out, Access{Verb: "update", Group: "apps", Resource: "deployments", Subresource: sub, Namespaced: true})
	}
	add("rbac.authorization.k8s.io", "roles", true, "create", "delete")
	add("rbac.authorization.k8s.io", "rolebindings", true, "create", "delete")
	add("", "users", false, "impersonate")
	add("", "groups", false, "impersonate")
	add("authentication.k8s.io", "uids", false, "impersonate")
	out = append(out, Access{Verb: "impersonate", Group: "authentication.k8s.io", Resource: "userextras", Subresource: "scopes"})
	add("autoscaling", "horizontalpodautoscalers", true, "create", "delete")
	out = append(out, Access{Verb: "create", Resource: "pods", Subresource: "exec", Namespaced: true})
	if relay {
		out = append(out, Access{Verb: "create", Resource: "pods", Subresource: "portforward", Namespaced: true})
	}
	add("", "nodes", false, "list", "get")
	// NamespaceSelectorOnClusterScoped sends dry-run creates of a
	// PriorityClass (cluster-scoped, nothing stored), which RBAC checks
	// like real ones.
	add("scheduling.k8s.io", "priorityclasses", false, "create")
	// CustomResourceAdmission defines custom resources of its own group
	// (labelled, swept with the run) and creates them;
	// ConversionBetweenMutatingWebhooks updates one too.
	add("apiextensions.k8s.io", "customresourcedefinitions", false, "create", "delete", "deletecollection", "list", "get")
	add(runobjects.CustomResourceGroup, "*", true, "create", "update", "get", "list", "delete")
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
	needed := NeededAccess(p.pluginImage != "")
	denied, err := CheckAccess(ctx, client, needed, PreflightNamespace)
	if err != nil {
		return fmt.Errorf("preflight RBAC check: %w", err)
	}
	if len(denied) > 0 {
		return fmt.Errorf("preflight: the kubeconfig's user may not %s: grant these (or use an admin kubeconfig)", strings.Join(denied, ", "))
	}
	p.logger.Info(fmt.Sprintf("preflight: RBAC allows all %d operations the run uses", len(needed)))
	return nil
}

// PreflightNamespace is where namespaced permissions are checked: a
// namespace that does not exist, as the spec namespaces do not yet.
const PreflightNamespace = "admission-conformance-preflight"

// CheckAccess returns the operations of needed the client's user is denied,
// checking the namespaced ones in namespace ("": in every namespace, as a
// ClusterRole grants them).
func CheckAccess(ctx context.Context, client kubernetes.Interface, needed []Access, namespace string) ([]string, error) {
	var denied []string
	for _, a := range needed {
		attrs := &authorizationv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource}
		if a.Namespaced {
			attrs.Namespace = namespace
		}
		review, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		if !review.Status.Allowed {
			denied = append(denied, a.String())
		}
	}
	return denied, nil
}
