package kind

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/internal/nodeset"
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
// Authorization is not what the harness checks, admission is. The binding
// names the cluster's own nodes (system:node:<name>), not group
// system:nodes, so another node identity (one a spec impersonates to watch
// the Node authorizer at work) has only what the Node authorizer gives it.
func grantPodStatusAccess(ctx context.Context, client kubernetes.Interface) error {
	list, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("grant nodes pod status access: list nodes: %w", err)
	}
	var subjects []rbacv1.Subject
	for _, n := range list.Items {
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "system:node:" + n.Name})
	}
	return nodeset.GrantPodStatusAccess(ctx, client, nodeAccessName, subjects...)
}
