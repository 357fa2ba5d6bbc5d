package install

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
)

// roles are the rights of the implementation's identities.
func roles(labels map[string]string) []*rbacv1.ClusterRole {
	return []*rbacv1.ClusterRole{
		{
			ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.PollerRole, Labels: labels},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{v1alpha1.Group}, Resources: []string{v1alpha1.Resource}, Verbs: []string{"list"}}},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: v1alpha1.ControllerRole, Labels: labels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "patch"}},
				{APIGroups: []string{""}, Resources: []string{"pods/status"}, Verbs: []string{"patch"}},
				{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}},
				{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"},
					Verbs: []string{"get", "list", "watch", "update"}},
			},
		},
	}
}

// pollerBinding lets the poller read the configurations; deleting it cuts
// the poller off, creating it again restores it.
func pollerBinding(labels map[string]string) *rbacv1.ClusterRoleBinding {
	return binding(v1alpha1.PollerBinding, v1alpha1.PollerRole, v1alpha1.PollerUser, labels)
}

func bindings(labels map[string]string) []*rbacv1.ClusterRoleBinding {
	return []*rbacv1.ClusterRoleBinding{
		pollerBinding(labels),
		binding(v1alpha1.ControllerBinding, v1alpha1.ControllerRole, v1alpha1.ControllerUser, labels),
	}
}

func binding(name, role, user string, labels map[string]string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
}

// ClusterRoles are the cluster roles Install creates: whoever installs the
// implementation must hold every right they grant (RBAC lets a user grant
// only what it holds).
func ClusterRoles() []*rbacv1.ClusterRole { return roles(nil) }

// ImpersonatedUsers are the users Install's admin config impersonates: the
// poller and the controller run as them.
func ImpersonatedUsers() []string { return []string{pollerUser, controllerUser} }
