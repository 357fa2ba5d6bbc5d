package ordering

import (
	"context"
	"strings"

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

var namespaceLifecycleBeforeWebhooks = spec.Spec{
	ShortName: "NamespaceLifecycleBeforeWebhooks",
	Suite:     "ordering",
	Description: "A create in a namespace that does not exist is refused (404) by the NamespaceLifecycle plugin before " +
		"any mutating or validating webhook is called; so is one in a namespace deleted moments ago, once it is gone " +
		"(while it terminates: 403).",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "003 NamespaceLifecycle: if the namespace in the context does not exist, reject the request; the chain " +
		"returns on the first error",
}

var _ = harness.Describe(namespaceLifecycleBeforeWebhooks, func(f *harness.Framework) {
	ginkgo.It("no webhook is called for a create in a missing namespace", func(ctx ginkgo.SpecContext) {
		probe := "missing-" + rand.String(8)
		// Scoped by object label alone: a namespace selector would need the
		// namespace to exist, and this one never does.
		hook := harness.Hook{Name: "hook", Rules: rule("", ops(opCreate), "configmaps"), Behaviour: allow(),
			NamespaceSelector: &metav1.LabelSelector{},
			ObjectSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{"admission-conformance.io/probe": probe}}}
		m, err := f.RegisterMutating(ctx, "lifecycle", hook)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		v, err := f.RegisterValidating(ctx, "lifecycle", hook)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		missing := f.Namespace + "-missing"
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: missing,
			Labels: map[string]string{"admission-conformance.io/probe": probe}}}
		_, err = f.Client.CoreV1().ConfigMaps(missing).Create(ctx, cm, metav1.CreateOptions{})
		gomega.Expect(apierrors.IsNotFound(err)).To(gomega.BeTrue(), "a create in a missing namespace must be 404 NotFound, got %v", err)
		for _, path := range []string{m.Hooks["hook"].Path, v.Hooks["hook"].Path} {
			gomega.Expect(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return c.Path == path && c.Namespace == missing })).
				To(gomega.BeEmpty(), "NamespaceLifecycle must refuse the request before any webhook is called (%s)", path)
		}

		// The same webhooks are called for the same object in a namespace
		// that exists, so the silence above is not a scoping mistake.
		cm.Namespace = f.Namespace
		_, err = f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		for _, path := range []string{m.Hooks["hook"].Path, v.Hooks["hook"].Path} {
			gomega.Expect(f.Env.Webhooks.Journal().Where(func(c fakewebhook.Call) bool { return c.Path == path && c.Namespace == f.Namespace })).
				To(gomega.HaveLen(1), "the control request must reach %s", path)
		}
	})

	ginkgo.It("a create in a namespace deleted moments ago is refused with 404 once the namespace is gone", func(ctx ginkgo.SpecContext) {
		// NamespaceLifecycle remembers the namespaces deleted through it for
		// a while and looks them up in storage rather than in its informer;
		// a namespace gone from both is missing like one that never existed.
		name := f.Namespace + "-deleted"
		namespaces := f.Client.CoreV1().Namespaces()
		_, err := namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: f.Labels()}}, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		ginkgo.DeferCleanup(func(ctx context.Context) error {
			if err := namespaces.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			return nil
		})
		gomega.Expect(namespaces.Delete(ctx, name, metav1.DeleteOptions{})).To(gomega.Succeed())
		gomega.Eventually(ctx, func(ctx context.Context) error {
			_, err := namespaces.Get(ctx, name, metav1.GetOptions{})
			return err
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).
			Should(gomega.Satisfy(apierrors.IsNotFound), "the deleted namespace %s must be gone", name)

		// A 403 "being terminated" is the answer while the plugin's informer
		// still holds the terminating namespace; it is waited out, and any
		// other answer ends the wait.
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: name}}
		gomega.Eventually(ctx, func(ctx context.Context) error {
			_, err := f.Client.CoreV1().ConfigMaps(name).Create(ctx, cm, metav1.CreateOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return nil
			case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "because it is being terminated"):
				return err
			case err == nil:
				return gomega.StopTrying("a create in the deleted namespace " + name + " was admitted")
			default:
				return gomega.StopTrying("a create in the deleted namespace " + name + " must be 404 NotFound").Wrap(err)
			}
		}).WithTimeout(f.Bounds.ObjectState.Duration).WithPolling(f.Bounds.PollInterval.Duration).Should(gomega.Succeed())
	})
})
