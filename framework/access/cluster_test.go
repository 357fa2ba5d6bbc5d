package access_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/access"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/internal/provider/embedded"
	// Every spec registers itself: the rights are those of the full selection.
	_ "github.com/admission-conformance/admission-conformance/suites/initializers"
	_ "github.com/admission-conformance/admission-conformance/suites/nodeadmit"
	_ "github.com/admission-conformance/admission-conformance/suites/ordering"
	_ "github.com/admission-conformance/admission-conformance/suites/webhooks"
)

// runner is the user bound to exactly the rights `run --plan` prints.
const runner = "admission-conformance:least-privilege-test"

// TestPrintedRightsOnEmbeddedCluster binds a user to exactly the
// ClusterRole `run --plan` prints for the full selection (no optional
// rights) on an embedded cluster and asks the cluster's own authorizer,
// with SubjectAccessReviews, what that user may do: every printed right,
// but no impersonation of system:masters, of a node or of anyone the
// harness does not name, no read of any secret, and no write of a
// cluster-scoped resource beyond those the harness's objects are.
func TestPrintedRightsOnEmbeddedCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("boots an embedded cluster")
	}
	ctx := context.Background()
	c, err := embedded.New(embedded.WithBaseDir(t.TempDir())).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Stop(context.Background()) }()
	admin, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	needed := access.Needed(false, spec.All())
	role := access.ClusterRole("admission-conformance-least", needed)
	if _, err := admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: runner}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	may := func(a authorizationv1.ResourceAttributes) bool {
		t.Helper()
		r, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: runner, Groups: []string{"system:authenticated"}, ResourceAttributes: &a}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status.Allowed
	}

	// RBAC's informers see the binding a moment after it is created.
	deadline := time.Now().Add(30 * time.Second)
	for !may(authorizationv1.ResourceAttributes{Verb: "create", Resource: "namespaces"}) {
		if time.Now().After(deadline) {
			t.Fatal("the binding never took effect")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Every printed right is granted (a spec namespace stands for all).
	for _, a := range needed {
		attrs := authorizationv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name}
		if a.Namespaced {
			attrs.Namespace = "ac-some-spec-abcde"
		}
		if !may(attrs) {
			t.Errorf("printed but not granted: %s", a)
		}
	}
	if t.Failed() {
		t.FailNow() // the binding did not take: the denials below would prove nothing
	}

	impersonate := func(resource, sub, name string) authorizationv1.ResourceAttributes {
		group := ""
		if resource == "uids" || resource == "userextras" {
			group = "authentication.k8s.io"
		}
		return authorizationv1.ResourceAttributes{Verb: "impersonate", Group: group, Resource: resource, Subresource: sub, Name: name}
	}
	for what, attrs := range map[string]authorizationv1.ResourceAttributes{
		"impersonate group system:masters":        impersonate("groups", "", "system:masters"),
		"impersonate group system:nodes":          impersonate("groups", "", "system:nodes"),
		"impersonate user system:admin":           impersonate("users", "", "system:admin"),
		"impersonate the cluster admin it names":  impersonate("users", "", "admission-conformance:cel-admin"),
		"impersonate a node":                      impersonate("users", "", "system:node:cel-node"),
		"impersonate an arbitrary user":           impersonate("users", "", "someone-else"),
		"impersonate a service account":           {Verb: "impersonate", Resource: "serviceaccounts", Namespace: "kube-system", Name: "default"},
		"impersonate an arbitrary uid":            impersonate("uids", "", "1234"),
		"impersonate an arbitrary extra value":    impersonate("userextras", "scopes", "admin"),
		"impersonate another extra key":           impersonate("userextras", "authentication.kubernetes.io/node-name", "n"),
		"impersonate the reviewer's per-case key": impersonate("userextras", "admission-conformance.io/case", "ns"),
		"get secrets in kube-system":              {Verb: "get", Resource: "secrets", Namespace: "kube-system"},
		"list secrets in kube-system":             {Verb: "list", Resource: "secrets", Namespace: "kube-system"},
		"watch secrets anywhere":                  {Verb: "watch", Resource: "secrets"},
		"get secrets in a spec namespace":         {Verb: "get", Resource: "secrets", Namespace: "ac-some-spec-abcde"},
		"escalate a cluster role":                 {Verb: "escalate", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		"bind a cluster role":                     {Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "cluster-admin"},
		"create a token for a service account":    {Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: "kube-system", Name: "default"},
		"approve a certificate":                   {Verb: "approve", Group: "certificates.k8s.io", Resource: "signers"},
	} {
		if may(attrs) {
			t.Errorf("the printed rights allow: %s (%+v)", what, attrs)
		}
	}

	// Cluster-scoped writes: only those of the kinds the harness's own
	// objects are. RBAC cannot scope them by label or group, so these are
	// exactly the kinds, not the objects (docs/providers.md says so).
	allowedKinds := map[string][]string{
		"namespaces": nil, "mutatingwebhookconfigurations.admissionregistration.k8s.io": nil,
		"validatingwebhookconfigurations.admissionregistration.k8s.io":   nil,
		"validatingadmissionpolicies.admissionregistration.k8s.io":       nil,
		"validatingadmissionpolicybindings.admissionregistration.k8s.io": nil,
		"mutatingadmissionpolicies.admissionregistration.k8s.io":         nil,
		"mutatingadmissionpolicybindings.admissionregistration.k8s.io":   nil,
		"customresourcedefinitions.apiextensions.k8s.io":                 nil,
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
	_, lists, err := admin.Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
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
				checked++
				ok, listed := allowedKinds[key]
				if may(authorizationv1.ResourceAttributes{Verb: verb, Group: group, Resource: r.Name}) &&
					!(listed && (ok == nil || slices.Contains(ok, verb))) {
					t.Errorf("the printed rights allow %s %s, a cluster-scoped write no run makes", verb, key)
				}
			}
		}
	}
	t.Logf("%d printed rights granted; %d cluster-scoped writes checked", len(needed), checked)
}
