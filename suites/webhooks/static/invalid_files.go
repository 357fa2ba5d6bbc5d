package static

import (
	"os"
	"path/filepath"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

// invalidFileCases are the loader's file-level checks on the webhook
// directories: what a file holds must decode, be a configuration of the
// directory's kind, carry a name not seen before in the directory, and be
// readable; a List is checked item by item.
var invalidFileCases = []invalidCase{
	{name: "a mutating webhook with a service clientConfig", plugin: cluster.StaticMutatingWebhook, objs: func(f *harness.Framework) []runtime.Object {
		return []runtime.Object{&admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "bad")},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "bad." + f.Namespace + ".admission-conformance.io",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: f.Namespace, Name: "svc"}},
				Rules:        speckit.ConfigMapRules(), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f)}},
		}}
	}},
	{name: "a document that does not decode", plugin: cluster.StaticValidatingWebhook, raw: func(f *harness.Framework) []byte {
		return []byte("apiVersion: admissionregistration.k8s.io/v1\n" +
			"kind: ValidatingWebhookConfiguration\nmetadata:\n  name: " + staticName(f, "bad") + "\nwebhooks: not a list\n")
	}},
	{name: "a policy in the webhook directory", plugin: cluster.StaticValidatingWebhook, objs: func(f *harness.Framework) []runtime.Object {
		// It decodes (the directory's scheme knows every
		// admissionregistration kind) but is not a webhook configuration.
		return staticDenyPolicy(f, "bad", "never-"+f.Namespace, "never")[:1]
	}},
	{name: "a configuration named like one already loaded", plugin: cluster.StaticValidatingWebhook, objs: func(f *harness.Framework) []runtime.Object {
		// Valid on its own: only its name, the good file's, is wrong.
		return validatingStaticSet(f, "static-twin", "twin-"+f.Namespace, "never")
	}},
	{name: "a document separator followed by text", plugin: cluster.StaticValidatingWebhook, raw: func(f *harness.Framework) []byte {
		// Only a comment may follow "---" on its line; the good file
		// is repeated after it so the separator alone is wrong.
		good, err := staticmanifest.Encode(validatingStaticSet(f, "static-separator", "separator-"+f.Namespace, "never")...)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return append([]byte("--- text after the separator\n"), good[len("---\n"):]...)
	}},
	{name: "a v1 List holding an item that does not decode", plugin: cluster.StaticValidatingWebhook, raw: func(f *harness.Framework) []byte {
		return []byte("apiVersion: v1\nkind: List\nitems:\n" +
			"- apiVersion: admissionregistration.k8s.io/v1\n  kind: ValidatingWebhookConfiguration\n  metadata:\n    name: " +
			staticName(f, "bad") + "\n  webhooks: not a list\n")
	}},
	{name: "a v1 List holding a webhook with a service clientConfig", plugin: cluster.StaticValidatingWebhook, raw: func(f *harness.Framework) []byte {
		return asList(serviceWebhookConfig(f))
	}},
	{name: "a file that cannot be read (a link to nowhere)", plugin: cluster.StaticValidatingWebhook, write: func(f *harness.Framework, plugin cluster.StaticPlugin) {
		for _, d := range staticDirs(f) {
			link := filepath.Join(d[plugin], staticFile(f, "bad"))
			gomega.Expect(os.Symlink(filepath.Join(d[plugin], "no-such-file-"+f.Namespace), link)).To(gomega.Succeed())
			ginkgo.DeferCleanup(os.Remove, link)
		}
	}},
}

// serviceWebhookConfig is a static validating webhook configuration the
// loader refuses only for its service clientConfig.
func serviceWebhookConfig(f *harness.Framework) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "bad")},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "bad." + f.Namespace + ".admission-conformance.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Namespace: f.Namespace, Name: "svc"}},
			Rules:        speckit.ConfigMapRules(), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f)}},
	}
}

// goodStaticSet is the previous set an invalid case starts from in plugin's
// directory: a policy, or a webhook of the directory's phase, denying dry-run
// ConfigMaps labelled value with message.
func goodStaticSet(f *harness.Framework, plugin cluster.StaticPlugin, value, message string) []runtime.Object {
	switch plugin {
	case cluster.StaticValidatingWebhook:
		return validatingStaticSet(f, "static-good", value, message)
	case cluster.StaticMutatingWebhook:
		hook, client, err := f.Serve(fakewebhook.Mutating, "static-good", fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: message})
		gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
		return []runtime.Object{&admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "good")},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: hook.FullName, ClientConfig: client, Rules: speckit.ConfigMapRules(),
				FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f),
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}}}},
		}}
	default:
		return staticDenyPolicy(f, "good", value, message)
	}
}

// validatingStaticSet is a static validating webhook configuration named
// after the case ("good") whose webhook, served as hookName, denies dry-run
// ConfigMaps labelled value with message.
func validatingStaticSet(f *harness.Framework, hookName, value, message string) []runtime.Object {
	hook, client, err := f.Serve(fakewebhook.Validating, hookName, fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: message})
	gomega.ExpectWithOffset(2, err).NotTo(gomega.HaveOccurred())
	return []runtime.Object{&admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "good")},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: hook.FullName, ClientConfig: client, Rules: speckit.ConfigMapRules(),
			FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f),
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}}}},
	}}
}
