package kind

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// nodeAccessName names the ClusterRole and binding below.
const nodeAccessName = "admission-conformance:kind-nodes"

// grantPodStatusAccess lets kubelets write pod status through RBAC as well
// as through the Node authorizer, on clusters the provider created (as the
// embedded cluster does for its nodes). The Node authorizer allows a kubelet
// a pod only once its graph holds the pod's binding to the node, and that
// graph trails the pod's creation, more so when the kubelet's apiserver is
// not the one that took the create (ha): a refused status write waits for
// the status manager's next full sync, 10 s later, and a rejection that
// shows in tens of milliseconds shows after ~9 s instead (seen here on ha).
// Authorization is not what the harness checks, admission is.
func grantPodStatusAccess(ctx context.Context, client kubernetes.Interface) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: nodeAccessName},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"get", "patch", "update"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: nodeAccessName},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: nodeAccessName},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:nodes"}},
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant kubelets pod status access: %w", err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant kubelets pod status access: %w", err)
	}
	return nil
}
