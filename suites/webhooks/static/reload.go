package static

import (
	"fmt"
	"strconv"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/admission-conformance/admission-conformance/framework/cluster"
	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
	"github.com/admission-conformance/admission-conformance/framework/staticmanifest"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

var staticReload = spec.Spec{
	ShortName: "StaticManifestReload",
	Suite:     "webhooks",
	Description: "Adding, changing and removing a static manifest file is enforced on every apiserver replica within " +
		"the static manifest reload bound, for a validating webhook and a ValidatingAdmissionPolicy.",
	Features:  []features.Name{features.StaticAdmissionManifests, features.ValidatingWebhook},
	Profile:   spec.Extended,
	Seed:      staticSeed + "; Synchronization: a change becomes effective in 1s",
	Isolation: staticShares,
}

// reloadTarget is a static configuration that denies, with message, the
// ConfigMaps of the case labelled speckit.ProbeLabel=value.
type reloadTarget func(value string) []runtime.Object

var _ = harness.Describe(staticReload, func(f *harness.Framework) {
	// steps measures adding the file (v1 denied), changing it (v2 denied,
	// v1 allowed again) and removing it (v2 allowed) on every replica.
	steps := func(ctx ginkgo.SpecContext, plugin cluster.StaticPlugin, message string, target reloadTarget) {
		dirs := staticDirs(f)
		file := staticFile(f, "reload")
		ginkgo.DeferCleanup(staticmanifest.Remove, dirs, plugin, file)
		v1, v2 := "reload-1-"+f.Namespace, "reload-2-"+f.Namespace
		bound := f.Bounds.StaticManifestReload.Duration
		measure := func(step string, change func() error, probes ...enforce.Probe) {
			gomega.Expect(change()).To(gomega.Succeed())
			start := time.Now()
			for _, probe := range probes {
				latencies, err := enforce.OnEveryReplicaSeen(ctx, start, f.Replicas, bound, f.Bounds.PollInterval.Duration, probe)
				for i, seen := range latencies {
					speckit.Within(f, "static-manifest-reload", seen.After, 0, bound, map[string]string{"plugin": string(plugin), "step": step, "replica": strconv.Itoa(i)})
				}
				gomega.Expect(err).NotTo(gomega.HaveOccurred(), "%s of a static %s manifest must be enforced within %s", step, plugin, bound)
				speckit.ExpectEachWithin(latencies, bound, fmt.Sprintf("%s of a static %s manifest", step, plugin))
			}
		}
		write := func(value string) func() error {
			return func() error { return staticmanifest.Write(dirs, plugin, file, target(value)...) }
		}
		measure("add", write(v1), deniedProbe(f, v1, message))
		measure("change", write(v2), deniedProbe(f, v2, message), allowedProbe(f, v1, message))
		measure("remove", func() error { return staticmanifest.Remove(dirs, plugin, file) }, allowedProbe(f, v2, message))
	}

	ginkgo.It("a static ValidatingAdmissionPolicy file added, changed and removed", func(ctx ginkgo.SpecContext) {
		message := "static reload policy " + f.Namespace
		steps(ctx, cluster.StaticValidatingPolicy, message, func(value string) []runtime.Object {
			return staticDenyPolicy(f, "reload", value, message)
		})
	})

	ginkgo.It("a static validating webhook file added, changed and removed", func(ctx ginkgo.SpecContext) {
		message := "static reload webhook " + f.Namespace
		hook, client, err := f.Serve(fakewebhook.Validating, "static-reload", fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: message})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		steps(ctx, cluster.StaticValidatingWebhook, message, func(value string) []runtime.Object {
			return []runtime.Object{&admissionregistrationv1.ValidatingWebhookConfiguration{
				ObjectMeta: metav1.ObjectMeta{Name: staticName(f, "reload")},
				Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: hook.FullName, ClientConfig: client, Rules: speckit.ConfigMapRules(),
					FailurePolicy: ptr.To(admissionregistrationv1.Fail), SideEffects: ptr.To(admissionregistrationv1.SideEffectClassNone),
					AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: namespaceSelector(f),
					ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{speckit.ProbeLabel: value}}}},
			}}
		})
	})
})
