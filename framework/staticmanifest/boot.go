package staticmanifest

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
)

// BootFile is the file name of the boot hooks in their plugins' directories.
const BootFile = "00-admission-conformance-boot.yaml"

// BootWebhookURL is where the boot webhook is called: port 1 of loopback,
// where nothing listens, so under failurePolicy Fail the call fails and the
// request is refused naming the webhook, which proves it was called.
const BootWebhookURL = "https://127.0.0.1:1/static-boot"

// namespaceCreates matches the creation of namespaces (cluster-scoped: the first request after readiness needs no namespace to exist).
var namespaceCreates = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"namespaces"}},
}}

// labelled selects objects carrying label, whatever its value.
func labelled(label string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: label, Operator: metav1.LabelSelectorOpExists}}}
}

// BootPolicy is the static ValidatingAdmissionPolicy and binding the
// provider writes before an apiserver starts: it denies creating namespaces
// that carry cluster.BootPolicyLabel.
func BootPolicy() (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: cluster.BootPolicyName},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ObjectSelector: labelled(cluster.BootPolicyLabel),
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: namespaceCreates[0],
				}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "false", Message: cluster.BootPolicyMessage}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "boot-binding.admission-conformance" + Suffix},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        cluster.BootPolicyName,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	return policy, binding
}

// BootWebhook is the static ValidatingWebhookConfiguration the provider
// writes before an apiserver starts: failurePolicy Fail, called at
// BootWebhookURL for namespaces carrying cluster.BootWebhookLabel.
func BootWebhook() *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: cluster.BootWebhookName},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    cluster.BootWebhookName,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(BootWebhookURL)},
			Rules:                   namespaceCreates,
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](1),
			ObjectSelector:          labelled(cluster.BootWebhookLabel),
			NamespaceSelector:       &metav1.LabelSelector{},
		}},
	}
}
