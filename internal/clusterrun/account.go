package clusterrun

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/access"
)

// Account is an existing service account the user names
// (--service-account NAMESPACE/NAME) for the run's pod: the run then
// creates no ServiceAccount, ClusterRole, ClusterRoleBinding, Role or
// RoleBinding, and its objects live in the account's namespace (a pod can
// only run as a service account of its own namespace).
type Account struct {
	Namespace, Name string
}

func (a Account) String() string { return a.Namespace + "/" + a.Name }

// ParseAccount reads NAMESPACE/NAME; its error is one line saying what is
// wrong and what to give.
func ParseAccount(s string) (Account, error) {
	ns, name, ok := strings.Cut(s, "/")
	switch {
	case !ok:
		return Account{}, fmt.Errorf("%q has no '/': give NAMESPACE/NAME of an existing service account, e.g. conformance/run-conformance", s)
	case ns == "" || name == "":
		return Account{}, fmt.Errorf("%q: both parts of NAMESPACE/NAME must be given, e.g. conformance/run-conformance", s)
	case len(validation.IsDNS1123Label(ns)) > 0:
		return Account{}, fmt.Errorf("%q: namespace %q is not a namespace name (lower-case letters, digits and '-')", s, ns)
	case len(validation.IsDNS1123Subdomain(name)) > 0:
		return Account{}, fmt.Errorf("%q: %q is not a service account name (lower-case letters, digits, '-' and '.')", s, name)
	}
	return Account{Namespace: ns, Name: name}, nil
}

// Subject is the account as the authorizer sees its pod's requests: its
// user name and the groups Kubernetes gives every service account token.
func (a Account) Subject() *access.Subject {
	return &access.Subject{User: "system:serviceaccount:" + a.Namespace + ":" + a.Name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + a.Namespace, "system:authenticated"}}
}

// WithServiceAccount runs the pod as the existing account a, in its
// namespace: Create makes only the run's Service, options ConfigMap and
// Job there (the pod adds its results ConfigMaps), and Delete removes only
// those, never the namespace or the account.
func WithServiceAccount(a Account) Option { return optionFunc(func(r *Run) { r.account = &a }) }

// Account is the user's service account the run uses (nil: the run makes
// its own namespace, account, ClusterRole and binding).
func (r *Run) Account() *Account { return r.account }

// OwnsNamespace: the run created its namespace and deletes it whole.
func (r *Run) OwnsNamespace() bool { return r.account == nil }

// AccountClientAccess is what the user who starts a run under an existing
// service account needs, in the account's namespace unless cluster-wide:
// read the account, ask the authorizer what it may do, create the run's
// objects, follow its pod, read and remove what it published. No RBAC
// object and no namespace is created, so none of ClientAccess's rights on
// them, and the user need not hold the pod's rights either (nothing grants
// them).
func AccountClientAccess() []access.Access {
	var out []access.Access
	add := func(group, resource, sub string, namespaced bool, verbs ...string) {
		for _, v := range verbs {
			out = append(out, access.Access{Verb: v, Group: group, Resource: resource, Subresource: sub, Namespaced: namespaced})
		}
	}
	add("", "serviceaccounts", "", true, "get")
	add("authorization.k8s.io", "subjectaccessreviews", "", false, "create")
	add("", "services", "", true, "create", "list", "delete")
	add("batch", "jobs", "", true, "create", "get", "list", "patch", "delete")
	add("", "pods", "", true, "get", "list", "delete")
	add("", "pods", "log", true, "get")
	add("", "configmaps", "", true, "create", "get", "list", "delete")
	add("", "events", "", true, "list")
	return out
}

// AccountRights is how the user's service account measures up to a run's
// rights (CheckAccount).
type AccountRights struct {
	// Needed is how many rights the run's pod uses.
	Needed int
	// EveryRun are rights every run needs that the account lacks: the run
	// cannot start.
	EveryRun []string
	// BySpec are, per spec, the rights only it needs that the account
	// lacks: its cases are not supported.
	BySpec map[string][]string
	// Optional are the identities outside the harness's own that selected
	// specs want, with the rights to impersonate them the account lacks
	// (none: it may).
	Optional []OptionalRights
}

// OptionalRights is one optional identity and what the account lacks of it.
type OptionalRights struct {
	access.Optional
	Denied []string
}

// CheckAccount checks, before anything is created, that the client's user
// may start r under its service account (AccountClientAccess, in the
// account's namespace), that the account exists, and which of the rights
// of r's pod (PodAccess, namespaced ones in every namespace: the spec
// namespaces' names are generated) and of the optional identities the
// account holds, asking the authorizer with SubjectAccessReviews for the
// account's user and groups. An error is one line saying what to do.
func CheckAccount(ctx context.Context, client kubernetes.Interface, r *Run) (AccountRights, error) {
	a := r.account
	if a == nil {
		return AccountRights{}, fmt.Errorf("the run has no service account of the user's")
	}
	denied, err := access.Check(ctx, client, AccountClientAccess(), a.Namespace)
	if err != nil {
		return AccountRights{}, fmt.Errorf("preflight RBAC check: %w", err)
	}
	if len(denied) > 0 {
		return AccountRights{}, fmt.Errorf("preflight: the kubeconfig's user may not %s (in namespace %s): grant these to start a run under service account %s",
			strings.Join(denied, ", "), a.Namespace, a)
	}
	if _, err := client.CoreV1().ServiceAccounts(a.Namespace).Get(ctx, a.Name, metav1.GetOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return AccountRights{}, fmt.Errorf("--service-account %s: no such service account: create it (kubectl create serviceaccount %s --namespace %s) "+
				"and bind it to the rights 'run --plan --in-cluster' prints", a, a.Name, a.Namespace)
		}
		return AccountRights{}, fmt.Errorf("--service-account %s: %w", a, err)
	}
	needed := r.PodAccess()
	denied, err = access.CheckAs(ctx, client, needed, "", a.Subject())
	if err != nil {
		return AccountRights{}, fmt.Errorf("preflight RBAC check of service account %s: %w", a, err)
	}
	out := AccountRights{Needed: len(needed)}
	out.EveryRun, out.BySpec = access.Lacking(needed, denied)
	specs := r.specs
	if specs == nil {
		specs = spec.All()
	}
	_, optional := access.ForSpecs(specs)
	for _, o := range optional {
		denied, err := access.CheckAs(ctx, client, o.Access, "", a.Subject())
		if err != nil {
			return AccountRights{}, fmt.Errorf("preflight RBAC check of service account %s: %w", a, err)
		}
		out.Optional = append(out.Optional, OptionalRights{Optional: o, Denied: denied})
	}
	return out, nil
}
