package static

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var staticFileForms = spec.Spec{
	ShortName: "StaticManifestFileForms",
	Suite:     "webhooks",
	Description: "Every file form a staticManifestsDir takes is loaded: a v1 List of policies or of webhook configurations, a .yml " +
		"file, a .json file, empty documents in a multi-document file; subdirectories, files of other extensions and empty files are ignored and the rest of the directory loads.",
	Features:  []features.Name{features.StaticAdmissionManifests, features.ValidatingAdmissionPolicy, features.ValidatingWebhook},
	Profile:   spec.Extended,
	Seed:      staticSeed,
	Isolation: staticShares,
}

var _ = harness.Describe(staticFileForms, func(f *harness.Framework) {
	ginkgo.It("a v1 List holding a policy and its binding, in a .yml file, is loaded", func(ctx ginkgo.SpecContext) {
		message := "static policy from a List of " + f.Namespace
		value := "list-" + f.Namespace
		writeStaticFile(f, cluster.StaticValidatingPolicy, f.Namespace+"-list.yml", asList(staticDenyPolicy(f, "list", value, message)...))
		awaitStatic(ctx, f, deniedProbe(f, value, message))
	})

	ginkgo.It("a validating webhook configuration in a .json file is loaded", func(ctx ginkgo.SpecContext) {
		message := "static webhook from JSON of " + f.Namespace
		value := "json-" + f.Namespace
		hook, client, err := f.Serve(fakewebhook.Validating, "static-json", fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: message})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		config := &admissionregistrationv1.ValidatingWebhookConfiguration{
			TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
			ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "json")},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: hook.FullName, ClientConfig: client, Rules: speckit.ConfigMapRules(),
				FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f),
				ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}}}},
		}
		data, err := json.Marshal(config)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		writeStaticFile(f, cluster.StaticValidatingWebhook, f.Namespace+"-json.json", data)
		awaitStatic(ctx, f, deniedProbe(f, value, message))
	})

	ginkgo.It("a v1 List holding a validating webhook configuration is loaded", func(ctx ginkgo.SpecContext) {
		message := "static webhook from a List of " + f.Namespace
		value := "webhook-list-" + f.Namespace
		writeStaticFile(f, cluster.StaticValidatingWebhook, f.Namespace+"-webhook-list.yaml",
			asList(validatingStaticSet(f, "static-list", value, message)...))
		awaitStatic(ctx, f, deniedProbe(f, value, message))
	})

	ginkgo.It("empty documents around and between the documents of a file are skipped", func(ctx ginkgo.SpecContext) {
		message := "static policy between empty documents of " + f.Namespace
		value := "sparse-" + f.Namespace
		objs := staticDenyPolicy(f, "sparse", value, message)
		policy, err := staticmanifest.Encode(objs[0])
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		binding, err := staticmanifest.Encode(objs[1])
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// Encode starts each document with "---": blank lines before the
		// first one and between the two documents are documents of
		// their own, holding only whitespace, and a trailing separator
		// ends the last. (Two separators with only blank lines between
		// are not such a document: the YAML reader keeps the first
		// "---" as the document's text, which does not decode.)
		data := slices.Concat([]byte("\n  \n"), policy, []byte("---\n   \n"), binding, []byte("---\n"))
		writeStaticFile(f, cluster.StaticValidatingPolicy, f.Namespace+"-sparse.yaml", data)
		awaitStatic(ctx, f, deniedProbe(f, value, message))
	})

	ginkgo.It("subdirectories, other extensions and empty files are ignored, and the rest of the directory loads", func(ctx ginkgo.SpecContext) {
		ignored := "ignored static policy of " + f.Namespace
		// A policy that would deny ignoredValue, in every place the loader
		// must skip; each is in place before the loaded file is written, so
		// the reload that loads it has seen them all.
		body, err := staticmanifest.Encode(staticDenyPolicy(f, "ignored", "ignored-"+f.Namespace, ignored)...)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		dirs := staticDirs(f)
		for _, d := range dirs {
			// Named like a manifest file, so only its being a directory
			// keeps the loader out of it.
			sub := filepath.Join(d[cluster.StaticValidatingPolicy], f.Namespace+"-subdir.yaml")
			gomega.Expect(os.MkdirAll(sub, 0o755)).To(gomega.Succeed())
			ginkgo.DeferCleanup(os.RemoveAll, sub)
			gomega.Expect(os.WriteFile(filepath.Join(sub, "policy.yaml"), body, 0o644)).To(gomega.Succeed())
		}
		writeStaticFile(f, cluster.StaticValidatingPolicy, f.Namespace+"-policy.txt", body)
		writeStaticFile(f, cluster.StaticValidatingPolicy, f.Namespace+"-policy.yaml.orig", body)
		writeStaticFile(f, cluster.StaticValidatingPolicy, f.Namespace+"-empty.yaml", nil)

		loaded := "loaded static policy of " + f.Namespace
		value := "loaded-" + f.Namespace
		writeStatic(f, cluster.StaticValidatingPolicy, "loaded", staticDenyPolicy(f, "loaded", value, loaded)...)
		awaitStatic(ctx, f, deniedProbe(f, value, loaded))
		for _, rc := range f.Replicas {
			_, err := speckit.DryRunCreate(ctx, rc, f.Namespace, "ignored-"+f.Namespace)
			gomega.Expect(err).NotTo(gomega.HaveOccurred(),
				"a policy in a subdirectory or in a file that is not .yaml, .yml or .json must not be loaded")
		}
	})
})
