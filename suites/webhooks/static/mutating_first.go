package static

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var staticMutatingFirst = spec.Spec{
	ShortName: "StaticMutatingWebhookFirst",
	Suite:     "webhooks",
	Description: "A static mutating webhook is called before every API-registered mutating webhook, even when the " +
		"API configurations' names sort before the static one's.",
	Features:  []features.Name{features.StaticAdmissionManifests, features.MutatingWebhook},
	Profile:   spec.Extended,
	Seed:      staticSeed,
	Isolation: staticShares,
}

var _ = harness.Describe(staticMutatingFirst, func(f *harness.Framework) {
	ginkgo.It("the static mutating webhook is called first", func(ctx ginkgo.SpecContext) {
		obj := speckit.Subject(f.Namespace)
		patch := fakewebhook.Behaviour{Action: fakewebhook.Patch, Patch: speckit.AddMutatedKey}
		// API configurations are named <namespace>-<name> ("ac-…"), which
		// sorts before the static one ("zz-…"): name order alone would
		// call them first.
		var api []harness.RegisteredHook
		for _, name := range []string{"a-first", "b-second"} {
			reg, err := f.RegisterMutating(ctx, name, harness.Hook{Name: "api", Behaviour: patch, ObjectSelector: speckit.Selecting(obj)})
			gomega.Expect(err).NotTo(gomega.HaveOccurred())
			api = append(api, reg.Hooks["api"])
		}
		// The static hook labels what it mutates: its marker probe has no
		// data for the API hooks' patch to add to.
		static, client, err := f.Serve(fakewebhook.Mutating, "static-first", fakewebhook.Behaviour{Action: fakewebhook.Patch,
			Patch: []fakewebhook.PatchOperation{{Op: "add", Path: "/metadata/labels/static-first", Value: "yes"}}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		marker := "static-first-" + f.Namespace
		writeStatic(f, cluster.StaticMutatingWebhook, "first", &admissionregistrationv1.MutatingWebhookConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "zz-" + staticName(f, "first")},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: static.FullName, ClientConfig: client, Rules: speckit.ConfigMapRules(),
				FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f),
				ObjectSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: speckit.ProbeLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{obj.Labels[speckit.ProbeLabel], marker}}}}}},
		})
		// Enforced once a probe labelled marker is labelled by the static
		// hook (the API hooks do not select it).
		awaitStatic(ctx, f, mutatedProbe(f, marker))

		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, obj, dryRun)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(created.Data).To(gomega.HaveKey("mutated"))
		gomega.Expect(created.Labels).To(gomega.HaveKeyWithValue("static-first", "yes"))
		calls := speckit.CallsTo(f, static, f.Namespace, obj.Name)
		gomega.Expect(calls).To(gomega.HaveLen(1), "the static webhook must be called once for the object")
		for i, hook := range api {
			apiCalls := speckit.CallsTo(f, hook, f.Namespace, obj.Name)
			gomega.Expect(apiCalls).To(gomega.HaveLen(1), "API webhook %d must be called once for the object", i)
			// Mutating webhooks are called one after another: the journal's
			// sequence is the order of the calls.
			gomega.Expect(calls[0].Seq).To(gomega.BeNumerically("<", apiCalls[0].Seq),
				"the static mutating webhook must be called before the API-registered %s", hook.FullName)
		}
	})
})

// mutatedProbe is enforced when a dry-run ConfigMap labelled value comes
// back with the label the static hook adds.
func mutatedProbe(f *harness.Framework, value string) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		cm, err := speckit.DryRunCreate(ctx, rc, f.Namespace, value)
		if err != nil {
			return false, err
		}
		return cm.Labels["static-first"] == "yes", nil
	}
}
