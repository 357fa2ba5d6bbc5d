package ordering

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var chainDenialStopsLaterPlugins = spec.Spec{
	ShortName: "ChainDenialStopsLaterPlugins",
	Suite:     "ordering",
	Description: "The first denial ends admission: a mutating webhook's denial means the webhooks listed after it and " +
		"every validating webhook are never called, and nothing is stored; a validating denial stores nothing.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed:     "003 chainAdmissionHandler.Admit: performs an admission control check using a chain of handlers, and returns immediately on first error",
}

var _ = harness.Describe(chainDenialStopsLaterPlugins, func(f *harness.Framework) {
	configMaps := rule("", ops(opCreate), "configmaps")
	deny := fakewebhook.Behaviour{Action: fakewebhook.Deny, Message: "stop here"}

	ginkgo.It("a mutating denial: later mutating webhooks and validating webhooks are not called", func(ctx ginkgo.SpecContext) {
		m, err := f.RegisterMutating(ctx, "chain", harness.Hook{Name: "first", Rules: configMaps, Behaviour: deny},
			harness.Hook{Name: "second", Rules: configMaps, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		v, err := f.RegisterValidating(ctx, "chain", harness.Hook{Name: "after", Rules: configMaps, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "denied-" + rand.String(5)}, Data: map[string]string{"submitted": "by the client"}}
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "the mutating webhook's denial must reach the client, got %v", err)
		gomega.Expect(err.Error()).To(gomega.ContainSubstring("stop here"))
		called := func(path string) int {
			return len(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return c.Path == path && c.Name == cm.Name }))
		}
		gomega.Expect(called(m.Hooks["first"].Path)).To(gomega.Equal(1), "the denying webhook is called once")
		gomega.Expect(called(m.Hooks["second"].Path)).To(gomega.BeZero(), "a mutating webhook listed after a denial must not be called")
		gomega.Expect(called(v.Hooks["after"].Path)).To(gomega.BeZero(), "no validating webhook may be called after a mutating denial")
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a denied create must store nothing, got %v", err)
	})

	ginkgo.It("a validating denial: nothing is stored", func(ctx ginkgo.SpecContext) {
		m, err := f.RegisterMutating(ctx, "chain", harness.Hook{Name: "before", Rules: configMaps, Behaviour: patch(setData("mutated", "yes"))})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		v, err := f.RegisterValidating(ctx, "chain", harness.Hook{Name: "deny", Rules: configMaps, Behaviour: deny})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "denied-" + rand.String(5)}, Data: map[string]string{"submitted": "by the client"}}
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(apierrors.IsForbidden(err)).To(gomega.BeTrue(), "the validating webhook's denial must reach the client, got %v", err)
		for _, path := range []string{m.Hooks["before"].Path, v.Hooks["deny"].Path} {
			gomega.Expect(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return c.Path == path && c.Name == cm.Name })).To(gomega.HaveLen(1))
		}
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a denied create must store nothing, got %v", err)
	})
})
