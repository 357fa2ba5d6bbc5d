package static

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var staticForConfigurations = spec.Spec{
	ShortName: "StaticHooksForConfigurations",
	Suite:     "webhooks",
	Description: "A static validating webhook and a static ValidatingAdmissionPolicy are called for admission " +
		"configuration objects (which API-registered hooks never see), and LIST never returns static configurations.",
	Features:  []features.Name{features.StaticAdmissionManifests, features.ValidatingWebhook},
	Profile:   spec.Extended,
	Seed:      staticSeed,
	Isolation: staticShares,
}

// staticTarget labels the configuration objects the case's hooks are scoped
// to (configurations are cluster-scoped: no namespace to scope by).
const staticTarget = "admission-conformance.io/static-target"

// configurationProbe is enforced when create (a dry run of a configuration
// labelled for the case) is denied with message.
func configurationProbe(message string, create func(ctx context.Context, client kubernetes.Interface) error) func(context.Context, *rest.Config) (bool, error) {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		client, err := kubernetes.NewForConfig(rc)
		if err != nil {
			return false, err
		}
		return denial(create(ctx, client), message)
	}
}

// expectNoStaticListed asserts that no name in names is static.
func expectNoStaticListed(kind string, names []string) {
	for _, n := range names {
		gomega.ExpectWithOffset(1, n).NotTo(gomega.HaveSuffix(staticmanifest.Suffix), "LIST of %s must not return static configurations", kind)
	}
}

var _ = harness.Describe(staticForConfigurations, func(f *harness.Framework) {
	target := func() map[string]string { l := f.Labels(); l[staticTarget] = f.Namespace; return l }
	selector := func() *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{staticTarget: f.Namespace}}
	}
	vwcRules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"admissionregistration.k8s.io"}, APIVersions: []string{"v1"},
			Resources: []string{"validatingwebhookconfigurations"}, Scope: ptr.To(admissionregistrationv1.ClusterScope)},
	}}

	ginkgo.It("a static validating webhook is called for webhook configurations, an API one is not, and LIST omits the static one", func(ctx ginkgo.SpecContext) {
		message := "static webhook for configurations " + f.Namespace
		hook, client, err := f.Serve(fakewebhook.Validating, "static-configs", fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: message})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		api, err := f.RegisterValidating(ctx, "api-configs", harness.Hook{Name: "api", Rules: vwcRules,
			Behaviour:         fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "API webhook for configurations " + f.Namespace},
			NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: selector()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		name := staticName(f, "configs")
		writeStatic(f, cluster.StaticValidatingWebhook, "configs", &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: hook.FullName, ClientConfig: client, Rules: vwcRules,
				FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: selector()}},
		})
		awaitStatic(ctx, f, configurationProbe(message, func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{GenerateName: f.Namespace + "-probe-", Labels: target()}}, dryRun)
			return err
		}))
		gomega.Expect(f.Env.Webhooks.Journal().ForPath(hook.Path)).NotTo(gomega.BeEmpty(), "the static webhook must have been called")
		gomega.Expect(f.Env.Webhooks.Journal().ForPath(api.Hooks["api"].Path)).To(gomega.BeEmpty(),
			"an API-registered webhook must never be called for webhook configurations")

		list, err := f.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var names []string
		for _, c := range list.Items {
			names = append(names, c.Name)
		}
		expectNoStaticListed("validatingwebhookconfigurations", names)
		_, err = f.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "GET of a static configuration must be 404, got %v", err)
	})

	ginkgo.It("a static ValidatingAdmissionPolicy is called for admission policies, and LIST omits static policies and bindings", func(ctx ginkgo.SpecContext) {
		message := "static policy for policies " + f.Namespace
		name := staticName(f, "policies")
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				FailurePolicy: ptr.To(admissionregistrationv1.Fail),
				MatchConstraints: &admissionregistrationv1.MatchResources{ObjectSelector: selector(),
					ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{"admissionregistration.k8s.io"}, APIVersions: []string{"v1"},
							Resources: []string{"validatingadmissionpolicies"}}}}}},
				Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: message}},
			},
		}
		binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "policies-binding")},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name,
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
		}
		writeStatic(f, cluster.StaticValidatingPolicy, "policies", policy, binding)
		awaitStatic(ctx, f, configurationProbe(message, func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{GenerateName: f.Namespace + "-probe-", Labels: target()},
				Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{MatchConstraints: speckit.PolicyConfigMapRules(),
					Validations: []admissionregistrationv1.Validation{{Expression: "true"}}}}, dryRun)
			return err
		}))

		ar := f.Client.AdmissionregistrationV1()
		policies, err := ar.ValidatingAdmissionPolicies().List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		var names []string
		for _, p := range policies.Items {
			names = append(names, p.Name)
		}
		expectNoStaticListed("validatingadmissionpolicies", names)
		bindings, err := ar.ValidatingAdmissionPolicyBindings().List(ctx, metav1.ListOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		names = nil
		for _, b := range bindings.Items {
			names = append(names, b.Name)
		}
		expectNoStaticListed("validatingadmissionpolicybindings", names)
		_, err = ar.ValidatingAdmissionPolicies().Get(ctx, name, metav1.GetOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "GET of a static policy must be 404, got %v", err)
	})
})
