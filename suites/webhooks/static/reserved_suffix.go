package static

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/mutatingpolicy"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var staticNameReserved = spec.Spec{
	ShortName: "StaticNameReserved",
	Suite:     "webhooks",
	Description: "Webhook configurations, ValidatingAdmissionPolicies and their bindings whose names end in .static.k8s.io " +
		"(reserved for static manifests) are refused over the API with 422 naming metadata.name.",
	Features: []features.Name{features.StaticAdmissionManifests},
	Profile:  spec.Extended,
	Seed:     staticSeed,
}

// reservedCreate creates (dry run: a broken apiserver stores nothing) one
// kind of configuration called name.
type reservedCreate func(ctx context.Context, f *harness.Framework, name string) error

var reservedCases = map[string]reservedCreate{
	"ValidatingWebhookConfiguration": func(ctx context.Context, f *harness.Framework, name string) error {
		_, err := f.Client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "hook." + f.Namespace + ".admission-conformance.io",
				ClientConfig: reservedClient, Rules: speckit.ConfigMapRules(), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f)}},
		}, dryRun)
		return err
	},
	"MutatingWebhookConfiguration": func(ctx context.Context, f *harness.Framework, name string) error {
		_, err := f.Client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "hook." + f.Namespace + ".admission-conformance.io",
				ClientConfig: reservedClient, Rules: speckit.ConfigMapRules(), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f)}},
		}, dryRun)
		return err
	},
	"ValidatingAdmissionPolicy": func(ctx context.Context, f *harness.Framework, name string) error {
		_, err := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{MatchConstraints: speckit.PolicyConfigMapRules(),
				Validations: []admissionregistrationv1.Validation{{Expression: "true"}}},
		}, dryRun)
		return err
	},
	"ValidatingAdmissionPolicyBinding": func(ctx context.Context, f *harness.Framework, name string) error {
		_, err := f.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, "any"),
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
		}, dryRun)
		return err
	},
}

// reservedClient is a well-formed client config: the configurations are
// valid in every way but their names.
var reservedClient = admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:1/reserved")}

// expectReserved asserts that creating each kind under a reserved name is
// refused, and that the same object under another name is accepted, so the
// refusal is the name's.
func expectReserved(ctx context.Context, f *harness.Framework, kind string, create reservedCreate) {
	speckit.ExpectFieldInvalid(create(ctx, f, f.Namespace+"-reserved"+staticmanifest.Suffix), "metadata.name", "reserved")
	if err := create(ctx, f, f.Namespace+"-allowed.example.com"); err != nil {
		ginkgo.Fail(kind + " under an ordinary name must be accepted, so the refusal is the name's: " + err.Error())
	}
}

var _ = harness.Describe(staticNameReserved, func(f *harness.Framework) {
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"} {
		ginkgo.It("a "+kind+" named *.static.k8s.io is refused over the API", func(ctx ginkgo.SpecContext) {
			expectReserved(ctx, f, kind, reservedCases[kind])
		})
	}
})

var staticNameReservedMAP = spec.Spec{
	ShortName: "StaticNameReservedMutatingPolicy",
	Suite:     "webhooks",
	Description: "MutatingAdmissionPolicies and their bindings whose names end in .static.k8s.io are refused over the " +
		"API with 422 naming metadata.name.",
	Features: []features.Name{features.StaticAdmissionManifests, features.MutatingAdmissionPolicy},
	Profile:  spec.Extended,
	Seed:     staticSeed,
}

var _ = harness.Describe(staticNameReservedMAP, func(f *harness.Framework) {
	ginkgo.It("a MutatingAdmissionPolicy named *.static.k8s.io is refused over the API", func(ctx ginkgo.SpecContext) {
		expectReserved(ctx, f, "MutatingAdmissionPolicy", func(ctx context.Context, f *harness.Framework, name string) error {
			_, err := mutatingpolicy.PolicyClient(f.Dynamic).Create(ctx, &mutatingpolicy.MutatingAdmissionPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
				Spec: mutatingpolicy.MutatingAdmissionPolicySpec{
					FailurePolicy: ptr.To(admissionregistrationv1.Fail), MatchConstraints: speckit.PolicyConfigMapRules(),
					ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
					Mutations:          []mutatingpolicy.Mutation{speckit.ApplyConfiguration(`Object{metadata: Object.metadata{labels: {"a": "b"}}}`)},
				}}, dryRun)
			return err
		})
	})
	ginkgo.It("a MutatingAdmissionPolicyBinding named *.static.k8s.io is refused over the API", func(ctx ginkgo.SpecContext) {
		expectReserved(ctx, f, "MutatingAdmissionPolicyBinding", func(ctx context.Context, f *harness.Framework, name string) error {
			_, err := mutatingpolicy.BindingClient(f.Dynamic).Create(ctx, &mutatingpolicy.MutatingAdmissionPolicyBinding{
				ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()},
				Spec:       mutatingpolicy.MutatingAdmissionPolicyBindingSpec{PolicyName: speckit.PolicyName(f, "any")}}, dryRun)
			return err
		})
	})
})
