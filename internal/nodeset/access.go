package nodeset

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// accessName names the ClusterRole and binding for the hollow nodes, and
// HollowNodesGroup is the group their identities carry besides system:nodes:
// the binding names it, not system:nodes, so a node identity the harness did
// not start (one a spec impersonates to watch the Node authorizer at work)
// has what the Node authorizer gives it and nothing more.
const (
	accessName       = "admission-conformance:hollow-nodes"
	HollowNodesGroup = "admission-conformance:hollow-nodes"
)

// grantPodStatusAccess lets every node read pods and write their status
// through RBAC as well as through the Node authorizer. The Node authorizer
// only allows a kubelet a pod once its graph holds the pod's binding to the
// node, and that graph trails the pod's creation by a few milliseconds. A pod
// created with spec.nodeName reaches its kubelet as fast as the graph learns
// of it, so the kubelet's first status write can be refused ("no
// relationship found between node ... and this object"), and the status
// manager only retries at its next full sync, 10 s later: measured here as
// 4 rejections in 100 taking ~10 s instead of ~10 ms. Authorization is not
// what the harness checks, admission is.
func grantPodStatusAccess(ctx context.Context, client kubernetes.Interface) error {
	return GrantPodStatusAccess(ctx, client, accessName, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: HollowNodesGroup})
}

// GrantPodStatusAccess creates the ClusterRole and binding called name that
// grantPodStatusAccess describes, for subjects; the kind provider uses it
// for its kubelets.
func GrantPodStatusAccess(ctx context.Context, client kubernetes.Interface, accessName string, subjects ...rbacv1.Subject) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: accessName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"get", "patch", "update"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: accessName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: accessName},
		Subjects:   subjects,
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant nodes pod status access: %w", err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant nodes pod status access: %w", err)
	}
	return nil
}
