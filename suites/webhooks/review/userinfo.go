package review

import (
	"slices"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var reviewRequestUserInfo = spec.Spec{
	ShortName: "ReviewRequestUserInfo",
	Suite:     "webhooks",
	Description: "The userInfo of an AdmissionReview is the identity that made the request, as the apiserver " +
		"authenticated it: for an impersonated user its username, uid, groups (with system:authenticated) and extra, " +
		"never the impersonator's.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "001 Attributes.GetUserInfo: information about the requesting user",
	// The user, uid, group and extra are framework/identity's: the run may
	// impersonate them by name and no one else.
	Impersonates: []identity.Name{identity.UserInfoUser},
}

var _ = harness.Describe(reviewRequestUserInfo, func(f *harness.Framework) {
	ginkgo.It("an impersonated user's username, uid, groups and extra reach mutating and validating webhooks", func(ctx ginkgo.SpecContext) {
		rc, err := f.Impersonate(ctx, identity.UserInfoUser, "")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		id := rc.Impersonate
		user := id.UserName
		hooks := observers(ctx, f, speckit.AllOperations("", "v1", "configmaps"))
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "configmap-writer", Namespace: f.Namespace, Labels: f.Labels()},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}}}}
		_, err = f.Client.RbacV1().Roles(f.Namespace).Create(ctx, role, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(f.Client.RbacV1().Roles(f.Namespace).Delete, role.Name, metav1.DeleteOptions{})
		binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "configmap-writer", Namespace: f.Namespace, Labels: f.Labels()},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
		_, err = f.Client.RbacV1().RoleBindings(f.Namespace).Create(ctx, binding, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(f.Client.RbacV1().RoleBindings(f.Namespace).Delete, binding.Name, metav1.DeleteOptions{})

		as, err := kubernetes.NewForConfig(rc)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		authenticated := speckit.WhoAmI(ctx, as)
		gomega.Expect(authenticated.Username).To(gomega.Equal(user), "the apiserver must authenticate the impersonated user")

		cm := speckit.Subject(f.Namespace)
		// RBAC allows the create only once the binding is in the
		// authorizer's cache.
		gomega.Eventually(ctx, func() error {
			_, err := as.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{FieldManager: "ac-impersonated"})
			return err
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
		want := authenticationv1.UserInfo{Username: user, UID: id.UID, Groups: append(slices.Clone(id.Groups), "system:authenticated"),
			Extra: map[string]authenticationv1.ExtraValue{}}
		for k, v := range id.Extra {
			want.Extra[k] = v
		}
		for _, c := range onePerPhase(f, hooks, "the impersonated create", withOptions("ac-impersonated")) {
			expectUser(c, want)
			expectUser(c, authenticated)
		}
		gomega.Expect(speckit.WhoAmI(ctx, f.Client).Username).NotTo(gomega.Equal(user), "the impersonator is someone else")
	})
})
