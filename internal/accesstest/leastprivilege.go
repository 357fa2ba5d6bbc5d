// Package accesstest asks a real cluster's authorizer what a subject bound
// to the harness's printed rights may do: the embedded and the kind tests
// of least privilege share its one list of what no run needs.
package accesstest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/internal/access"
)

// SpecNamespace stands for every spec namespace (they get generated names,
// so namespaced rights are granted cluster-wide).
const SpecNamespace = "ac-some-spec-abcde"

// Report is what Check found: how many rights it asked, and each right the
// subject lacks or holds against the list.
type Report struct {
	Granted, Denials, ClusterWrites int
	Problems                        []string
}

// Check asks admin's authorizer, with SubjectAccessReviews for subject,
// that every right in needed is granted, that nothing of Denials is, and
// that no cluster-scoped write the cluster serves (discovery) is, beyond
// the kinds AllowedClusterWrites names.
func Check(ctx context.Context, admin kubernetes.Interface, subject access.Subject, needed []access.Access) (Report, error) {
	var rep Report
	may := func(a authorizationv1.ResourceAttributes) (bool, error) {
		r, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: subject.User, Groups: subject.Groups, ResourceAttributes: &a}}, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return r.Status.Allowed, nil
	}
	for _, a := range needed {
		attrs := authorizationv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name}
		if a.Namespaced {
			attrs.Namespace = SpecNamespace
		}
		ok, err := may(attrs)
		if err != nil {
			return rep, err
		}
		if !ok {
			rep.Problems = append(rep.Problems, "printed but not granted: "+a.String())
			continue
		}
		rep.Granted++
	}
	if len(rep.Problems) > 0 {
		// The binding did not take: the denials below would prove nothing.
		return rep, nil
	}
	for _, d := range Denials() {
		rep.Denials++
		ok, err := may(d.Attributes)
		if err != nil {
			return rep, err
		}
		if ok {
			rep.Problems = append(rep.Problems, fmt.Sprintf("the rights allow: %s (%+v)", d.What, d.Attributes))
		}
	}
	_, lists, err := admin.Discovery().ServerGroupsAndResources()
	if err != nil {
		return rep, err
	}
	allowed := AllowedClusterWrites()
	for _, l := range lists {
		group, _, _ := strings.Cut(l.GroupVersion, "/")
		if !strings.Contains(l.GroupVersion, "/") {
			group = ""
		}
		for _, r := range l.APIResources {
			if r.Namespaced || strings.Contains(r.Name, "/") {
				continue
			}
			key := r.Name
			if group != "" {
				key += "." + group
			}
			for _, verb := range []string{"create", "update", "patch", "delete", "deletecollection"} {
				if !slices.Contains(r.Verbs, verb) {
					continue
				}
				rep.ClusterWrites++
				ok, err := may(authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: r.Name})
				if err != nil {
					return rep, err
				}
				verbs, listed := allowed[key]
				if ok && !(listed && (verbs == nil || slices.Contains(verbs, verb))) {
					rep.Problems = append(rep.Problems, fmt.Sprintf("the rights allow %s %s, a cluster-scoped write no run makes", verb, key))
				}
			}
		}
	}
	return rep, nil
}

// AwaitGranted waits until the authorizer grants subject the right to
// create namespaces, which every run needs: RBAC's informers see a new
// binding a moment after it is created.
func AwaitGranted(ctx context.Context, admin kubernetes.Interface, subject access.Subject, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		r, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: subject.User, Groups: subject.Groups,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "namespaces"}}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if r.Status.Allowed {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s may not create namespaces %s after its binding was created", subject.User, within)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Denial is a right no run needs.
type Denial struct {
	What       string
	Attributes authorizationv1.ResourceAttributes
}

// Denials are the rights no selection needs: impersonating anyone the
// harness does not name (system:masters, a node, a service account, other
// uids and extras), reading any secret, and escalating through RBAC,
// tokens or certificates.
func Denials() []Denial {
	impersonate := func(resource, sub, name string) authorizationv1.ResourceAttributes {
		group := ""
		if resource == "uids" || resource == "userextras" {
			group = "authentication.k8s.io"
		}
		return authorizationv1.ResourceAttributes{Verb: "impersonate", Group: group, Resource: resource, Subresource: sub, Name: name}
	}
	return []Denial{
		{"impersonate group system:masters", impersonate("groups", "", "system:masters")},
		{"impersonate group system:nodes", impersonate("groups", "", "system:nodes")},
		{"impersonate user system:admin", impersonate("users", "", "system:admin")},
		{"impersonate the cluster admin it names", impersonate("users", "", "admission-conformance:cel-admin")},
		{"impersonate a node", impersonate("users", "", "system:node:cel-node")},
		{"impersonate an arbitrary user", impersonate("users", "", "someone-else")},
		{"impersonate a service account", authorizationv1.ResourceAttributes{Verb: "impersonate", Resource: "serviceaccounts", Namespace: "kube-system", Name: "default"}},
		{"impersonate an arbitrary uid", impersonate("uids", "", "1234")},
		{"impersonate an arbitrary extra value", impersonate("userextras", "scopes", "admin")},
		{"impersonate another extra key", impersonate("userextras", "authentication.kubernetes.io/node-name", "n")},
		{"impersonate the reviewer's per-case key", impersonate("userextras", "admission-conformance.io/case", "ns")},
		{"get secrets in kube-system", authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: "kube-system"}},
		{"list secrets in kube-system", authorizationv1.ResourceAttributes{Verb: "list", Resource: "secrets", Namespace: "kube-system"}},
		{"watch secrets anywhere", authorizationv1.ResourceAttributes{Verb: "watch", Resource: "secrets"}},
		{"get secrets in a spec namespace", authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets", Namespace: SpecNamespace}},
		{"escalate a cluster role", authorizationv1.ResourceAttributes{Verb: "escalate", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}},
		{"bind a cluster role", authorizationv1.ResourceAttributes{Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "cluster-admin"}},
		{"create a token for a service account", authorizationv1.ResourceAttributes{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: "kube-system", Name: "default"}},
		{"approve a certificate", authorizationv1.ResourceAttributes{Verb: "approve", Group: "certificates.k8s.io", Resource: "signers"}},
	}
}

// AllowedClusterWrites are the cluster-scoped kinds (resource.group) the
// printed rights may write, with their verbs (nil: every write): only
// those of the kinds the harness's own objects are. RBAC cannot scope them
// by label or group, so these are exactly the kinds, not the objects
// (docs/providers.md says so).
func AllowedClusterWrites() map[string][]string {
	return map[string][]string{
		"namespaces": nil, "mutatingwebhookconfigurations.admissionregistration.k8s.io": nil,
		"validatingwebhookconfigurations.admissionregistration.k8s.io":   nil,
		"validatingadmissionpolicies.admissionregistration.k8s.io":       nil,
		"validatingadmissionpolicybindings.admissionregistration.k8s.io": nil,
		"mutatingadmissionpolicies.admissionregistration.k8s.io":         nil,
		"mutatingadmissionpolicybindings.admissionregistration.k8s.io":   nil,
		"customresourcedefinitions.apiextensions.k8s.io":                 nil,
		// KubeletAdmitsUpToAllocatable's RuntimeClass (a pod overhead).
		"runtimeclasses.node.k8s.io": nil,
		// Dry-run creates only (NamespaceSelectorOnClusterScoped); RBAC
		// checks them like real ones.
		"priorityclasses.scheduling.k8s.io": {"create"},
		// Node specs change nodes the harness runs (a taint, the OS
		// label); only they need it, so a user who does not grant it gets
		// those specs not supported (RBAC cannot name nodes a run has not
		// created yet).
		"nodes": {"update", "patch"},
		// Reviews store nothing: every authenticated user may make the
		// self reviews (system:basic-user); PolicyCELVariables makes
		// SubjectAccessReviews.
		"selfsubjectreviews.authentication.k8s.io":      {"create"},
		"selfsubjectaccessreviews.authorization.k8s.io": {"create"},
		"selfsubjectrulesreviews.authorization.k8s.io":  {"create"},
		"subjectaccessreviews.authorization.k8s.io":     {"create"},
	}
}

// BindUser binds user (with no group but system:authenticated) to exactly
// rights through a ClusterRole and binding of its own, waits until the
// authorizer grants them, and returns the user as a subject and a func that
// deletes both objects.
func BindUser(ctx context.Context, admin kubernetes.Interface, user string, rights []access.Access) (access.Subject, func(context.Context), error) {
	role := access.ClusterRole("test-"+strings.ReplaceAll(user, ":", "-"), rights)
	remove := func(ctx context.Context) {
		_ = admin.RbacV1().ClusterRoleBindings().Delete(ctx, role.Name, metav1.DeleteOptions{})
		_ = admin.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	}
	subject := access.Subject{User: user, Groups: []string{"system:authenticated"}}
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return subject, remove, err
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}, metav1.CreateOptions{}); err != nil {
		return subject, remove, err
	}
	return subject, remove, AwaitGranted(ctx, admin, subject, 30*time.Second)
}
