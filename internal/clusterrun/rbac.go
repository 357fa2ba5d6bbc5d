package clusterrun

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/admission-conformance/admission-conformance/internal/access"
	"github.com/admission-conformance/admission-conformance/internal/provider/kubeconfig"
)

// ClientAccess is what the user who starts an in-cluster run needs besides
// PodAccess (which they must hold to grant it): create and remove the run's
// objects, follow its pod and read its results. Namespaced ones are needed
// in the run's own namespace only.
func ClientAccess() []kubeconfig.Access {
	var out []kubeconfig.Access
	add := func(group, resource, sub string, namespaced bool, verbs ...string) {
		for _, v := range verbs {
			out = append(out, kubeconfig.Access{Verb: v, Group: group, Resource: resource, Subresource: sub, Namespaced: namespaced})
		}
	}
	add("", "namespaces", "", false, "create", "delete", "get", "list")
	add("rbac.authorization.k8s.io", "clusterroles", "", false, "create", "delete", "get", "list")
	add("rbac.authorization.k8s.io", "clusterrolebindings", "", false, "create", "delete", "get", "list")
	add("", "serviceaccounts", "", true, "create")
	add("", "services", "", true, "create")
	add("batch", "jobs", "", true, "create", "get", "list", "patch", "delete")
	add("", "pods", "", true, "get", "list", "delete")
	add("", "pods", "log", true, "get")
	add("", "configmaps", "", true, "create", "get", "list")
	add("", "events", "", true, "list")
	return out
}

// Rules turns permissions into RBAC rules (access.Rules).
func Rules(list []kubeconfig.Access) []rbacv1.PolicyRule { return access.Rules(list) }
