package matching

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/identity"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var reviewResourcesExcluded = spec.Spec{
	ShortName: "WebhooksSkipReviewResources",
	Suite:     "webhooks",
	Description: "Webhooks are never called for tokenreviews, selfsubjectreviews, subjectaccessreviews, " +
		"selfsubjectaccessreviews, selfsubjectrulesreviews and localsubjectaccessreviews: a Fail webhook on */* whose " +
		"server is down blocks none of them, a live one is not called for them, and a configuration naming one gets a warning.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook, features.WebhookMatchConditions,
		features.WebhookVirtualResourcesExcluded},
	Profile: spec.Extended,
	Seed: "002 Goals: do not block the entire cluster (kube-apiserver 1.37 ExcludeAdmissionWebhookVirtualResources: " +
		"admission must not wedge a cluster out of its own authentication and authorization)",
	Impersonates: []identity.Name{identity.Reviewer},
}

// reviewResource is one of the resources webhooks are never called for, and
// how to send a request for it.
type reviewResource struct {
	group, resource string
	send            func(ctx context.Context, c kubernetes.Interface, namespace string) error
}

// reviewResources are k8s.io/kubernetes pkg/kubeapiserver/admission/exclusion
// Excluded() (v1.37.2), every one of them, sent as upstream's
// exclusion_test.go sends them.
var reviewResources = []reviewResource{
	{"authentication.k8s.io", "tokenreviews", func(ctx context.Context, c kubernetes.Interface, _ string) error {
		_, err := c.AuthenticationV1().TokenReviews().Create(ctx,
			&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "not-a-token"}}, metav1.CreateOptions{})
		return err
	}},
	{"authentication.k8s.io", "selfsubjectreviews", func(ctx context.Context, c kubernetes.Interface, _ string) error {
		_, err := c.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		return err
	}},
	{"authorization.k8s.io", "subjectaccessreviews", func(ctx context.Context, c kubernetes.Interface, ns string) error {
		_, err := c.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: "someone-else", ResourceAttributes: getPods(ns)}}, metav1.CreateOptions{})
		return err
	}},
	{"authorization.k8s.io", "selfsubjectaccessreviews", func(ctx context.Context, c kubernetes.Interface, ns string) error {
		_, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: getPods(ns)}}, metav1.CreateOptions{})
		return err
	}},
	{"authorization.k8s.io", "selfsubjectrulesreviews", func(ctx context.Context, c kubernetes.Interface, ns string) error {
		_, err := c.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
			Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns}}, metav1.CreateOptions{})
		return err
	}},
	{"authorization.k8s.io", "localsubjectaccessreviews", func(ctx context.Context, c kubernetes.Interface, ns string) error {
		_, err := c.AuthorizationV1().LocalSubjectAccessReviews(ns).Create(ctx, &authorizationv1.LocalSubjectAccessReview{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns},
			Spec:       authorizationv1.SubjectAccessReviewSpec{User: "someone-else", ResourceAttributes: getPods(ns)}}, metav1.CreateOptions{})
		return err
	}},
}

func getPods(namespace string) *authorizationv1.ResourceAttributes {
	return &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: "get", Resource: "pods"}
}

// reviewerOnly is true for the requests of the identity only this spec's requests are made as
// (identity.Reviewer): the webhooks match every resource, and their
// matchCondition on its user and on the case's value of its extra
// identity.CaseExtra (the case's namespace) keeps every other request of
// the cluster (parallel cases, controllers, kubelets) away from them. The
// reviews themselves carry no labels and most are cluster-scoped, so no
// selector could scope them. The value is per case, not the user name, so
// the run may impersonate one user by name.
func reviewerOnly(f *harness.Framework) string {
	return fmt.Sprintf("request.userInfo.username == '%s' && '%s' in request.userInfo.extra && request.userInfo.extra['%s'] == ['%s']",
		speckit.IdentityOf(identity.Reviewer).User, identity.CaseExtra, identity.CaseExtra, f.Namespace)
}

// asReviewer is a client impersonating the reviewer. system:masters makes
// every review and the ConfigMap create authorized: a request refused by
// authorization never reaches admission, and the spec would prove nothing.
// A run that may not impersonate it reports the case not supported.
func asReviewer(ctx context.Context, f *harness.Framework) kubernetes.Interface {
	rc, err := f.Impersonate(ctx, identity.Reviewer, f.Namespace)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	client, err := kubernetes.NewForConfig(rc)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return client
}

// everythingOfReviewer is a hook on every operation of every resource and
// subresource, called only for the reviewer's requests.
func everythingOfReviewer(f *harness.Framework, name string) harness.Hook {
	return harness.Hook{
		Name: name,
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"},
				Scope: ptr.To(admissionregistrationv1.AllScopes)},
		}},
		MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "reviewer-only",
			Expression: reviewerOnly(f)}},
		Behaviour: speckit.Allow(),
	}
}

// sendReviews sends one request for every review resource as the reviewer
// and asserts each one is answered.
func sendReviews(ctx context.Context, f *harness.Framework, as kubernetes.Interface) {
	for _, r := range reviewResources {
		gomega.ExpectWithOffset(1, r.send(ctx, as, f.Namespace)).To(gomega.Succeed(),
			"a %s.%s request must never reach a webhook", r.resource, r.group)
	}
	// The requests were made as the reviewer, so the matchCondition did not
	// keep them from the webhooks.
	gomega.ExpectWithOffset(1, speckit.WhoAmI(ctx, as).Username).To(gomega.Equal(speckit.IdentityOf(identity.Reviewer).User))
}

var _ = harness.Describe(reviewResourcesExcluded, func(f *harness.Framework) {
	for _, phase := range []fakewebhook.Phase{fakewebhook.Mutating, fakewebhook.Validating} {
		ginkgo.It(fmt.Sprintf("a %s webhook on */* whose server is down blocks no review, and rejects a ConfigMap", phase), func(ctx ginkgo.SpecContext) {
			as := asReviewer(ctx, f) // first: without the right, nothing is created
			down, err := speckit.RefusingAddress()
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			hook := everythingOfReviewer(f, "down")
			hook.URL = "https://" + down + "/down"
			hook.FailurePolicy = admissionregistrationv1.Fail
			reg, err := speckit.Register(ctx, f, phase, hook)
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			_, err = as.CoreV1().ConfigMaps(f.Namespace).Create(ctx, speckit.Subject(f.Namespace), metav1.CreateOptions{})
			speckit.ExpectCallFailure(err, reg.Hooks["down"].FullName)
			sendReviews(ctx, f, as)
		})

		ginkgo.It(fmt.Sprintf("a live %s webhook on */* is called for a ConfigMap and for no review", phase), func(ctx ginkgo.SpecContext) {
			as := asReviewer(ctx, f)
			reg, err := speckit.Register(ctx, f, phase, everythingOfReviewer(f, "live"))
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			cm := speckit.Subject(f.Namespace)
			_, err = as.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			sendReviews(ctx, f, as)
			path := reg.Hooks["live"].Path
			// A call for a review would have been received before the
			// review was answered, so it is finished or in flight now.
			calls := append(f.Env.Webhooks.Journal().ForPath(path), f.Env.Webhooks.Journal().InFlight()...)
			var seen []string
			for _, c := range calls {
				if c.Path == path {
					seen = append(seen, fmt.Sprintf("%s %s/%s %s/%s", c.Operation, c.Resource.Group, c.Resource.Resource, c.Namespace, c.Name))
				}
			}
			gomega.Expect(seen).To(gomega.ConsistOf(fmt.Sprintf("CREATE /configmaps %s/%s", f.Namespace, cm.Name)),
				"the webhook must be called for the ConfigMap and for none of the reviews")
		})
	}

	ginkgo.It("a configuration whose rules name review resources is created and updated with a warning for each", func(ctx ginkgo.SpecContext) {
		served, client, err := f.Serve(fakewebhook.Validating, "named", speckit.Allow())
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		rules := []admissionregistrationv1.RuleWithOperations{
			namedRule("authentication.k8s.io", "tokenreviews", "selfsubjectreviews"),
			namedRule("authorization.k8s.io", "subjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews", "localsubjectaccessreviews"),
			namedRule("", "configmaps"),
		}
		var want []string
		for _, r := range reviewResources {
			i := map[string]int{"authentication.k8s.io": 0, "authorization.k8s.io": 1}[r.group]
			want = append(want, fmt.Sprintf("webhooks[0].rules[%d]: %s.%s is excluded from admission webhooks; this rule will have no effect",
				i, r.resource, r.group))
		}
		// Harmless even where the rules take effect: Ignore, the reviewer only, an allowing server.
		hook := admissionregistrationv1.ValidatingWebhook{
			Name: served.FullName, ClientConfig: client, Rules: rules,
			FailurePolicy:   ptr.To(admissionregistrationv1.Ignore),
			MatchConditions: everythingOfReviewer(f, "named").MatchConditions,
			SideEffects:     ptr.To(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		}
		warned, w := speckit.WarningClient(f)
		ar := warned.AdmissionregistrationV1()

		v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: f.Namespace + "-named-v", Labels: f.Labels()},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{hook}}
		v, err = ar.ValidatingWebhookConfigurations().Create(ctx, v, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete, v.Name)
		gomega.Expect(w.Take()).To(gomega.ConsistOf(want), "creating a validating configuration naming review resources must warn about each")
		v.Annotations = map[string]string{"updated": "yes"}
		_, err = ar.ValidatingWebhookConfigurations().Update(ctx, v, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(w.Take()).To(gomega.ConsistOf(want), "updating it must warn again")

		m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: f.Namespace + "-named-m", Labels: f.Labels()},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: hook.Name, ClientConfig: hook.ClientConfig, Rules: hook.Rules, FailurePolicy: hook.FailurePolicy,
				MatchConditions: hook.MatchConditions, SideEffects: hook.SideEffects, AdmissionReviewVersions: hook.AdmissionReviewVersions,
			}}}
		m, err = ar.MutatingWebhookConfigurations().Create(ctx, m, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(speckit.IgnoreNotFound, f.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete, m.Name)
		gomega.Expect(w.Take()).To(gomega.ConsistOf(want), "creating a mutating configuration naming review resources must warn about each")
		m.Annotations = map[string]string{"updated": "yes"}
		_, err = ar.MutatingWebhookConfigurations().Update(ctx, m, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(w.Take()).To(gomega.ConsistOf(want), "updating it must warn again")
	})
})

// namedRule is a rule on every operation of resources of group, named
// explicitly (upstream warns only about names, never about wildcards).
func namedRule(group string, resources ...string) admissionregistrationv1.RuleWithOperations {
	return admissionregistrationv1.RuleWithOperations{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{group}, APIVersions: []string{"v1"}, Resources: resources},
	}
}
