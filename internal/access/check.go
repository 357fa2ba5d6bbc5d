package access

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Check returns the operations of needed the client's user is denied,
// checking the namespaced ones in namespace ("": in every namespace, as a
// ClusterRole grants them).
func Check(ctx context.Context, client kubernetes.Interface, needed []Access, namespace string) ([]string, error) {
	return CheckAs(ctx, client, needed, namespace, nil)
}

// Subject is someone other than the client's user whose rights are checked
// with SubjectAccessReviews: a service account the user names.
type Subject struct {
	User   string
	Groups []string
}

// CheckAs is Check for subject (nil: the client's own user, by
// SelfSubjectAccessReviews, which any user may make).
func CheckAs(ctx context.Context, client kubernetes.Interface, needed []Access, namespace string, subject *Subject) ([]string, error) {
	var denied []string
	for _, a := range needed {
		attrs := &authorizationv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name}
		if a.Namespaced {
			attrs.Namespace = namespace
		}
		allowed, err := review(ctx, client, attrs, subject)
		if err != nil {
			return nil, err
		}
		if !allowed {
			denied = append(denied, a.String())
		}
	}
	return denied, nil
}

func review(ctx context.Context, client kubernetes.Interface, attrs *authorizationv1.ResourceAttributes, subject *Subject) (bool, error) {
	if subject == nil {
		r, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs}}, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		return r.Status.Allowed, nil
	}
	r, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: subject.User, Groups: subject.Groups, ResourceAttributes: attrs}}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return r.Status.Allowed, nil
}
