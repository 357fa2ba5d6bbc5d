package ordering

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admission-conformance/admission-conformance/framework/fakewebhook"
	"github.com/admission-conformance/admission-conformance/framework/features"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/framework/spec"
)

var reinvocationPolicy = spec.Spec{
	ShortName: "MutatingReinvocationPolicy",
	Suite:     "ordering",
	Description: "A mutating webhook with reinvocationPolicy IfNeeded is called again, once at most, when a webhook after " +
		"it changed the object, and not when none did; one with Never is not called again.",
	Features: []features.Name{features.MutatingWebhook},
	Profile:  spec.Core,
	Seed: "000 Requirements for extensible admission: one mutating admission plugin can invalidate the results of " +
		"others, ordering matters for individual mutators",
	Manifests: []string{"ordering/configmap.yaml"},
}

var _ = harness.Describe(reinvocationPolicy, func(f *harness.Framework) {
	// create sends the subject through the hooks and returns, per hook, the
	// calls its create caused.
	create := func(ctx ginkgo.SpecContext, r *harness.Registration, names ...string) map[string]calls {
		nonce := newNonce()
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		cm.Data["ping"] = "the value the hooks move back and forth"
		_, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		all, err := requestCalls(ctx, f, nonce, paths(r, names...)...)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		out := map[string]calls{}
		for _, n := range names {
			out[n] = all.onPath(r.Hooks[n].Path)
		}
		return out
	}

	ginkgo.It("reinvokes IfNeeded webhooks at most once, however often later webhooks change the object", func(ctx ginkgo.SpecContext) {
		// Each hook undoes the other's change, so every call changes the
		// object and without the limit they would call each other forever.
		r, err := f.RegisterMutating(ctx, "mutate",
			harness.Hook{Name: "ping", ReinvocationPolicy: ifNeeded,
				Behaviour: patch(fakewebhook.PatchOperation{Op: "move", From: "/data/ping", Path: "/data/pong"})},
			harness.Hook{Name: "pong", ReinvocationPolicy: ifNeeded,
				Behaviour: patch(fakewebhook.PatchOperation{Op: "move", From: "/data/pong", Path: "/data/ping"})},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		got := create(ctx, r, "ping", "pong")
		gomega.Expect(got["ping"]).To(gomega.HaveLen(2), "ping must be called once, then reinvoked once after pong changed the object")
		gomega.Expect(got["pong"]).To(gomega.HaveLen(2), "pong must be called once, then reinvoked once after ping changed the object again")
		gomega.Expect(got["pong"][0].RespondedAt.Before(got["ping"][1].ReceivedAt)).To(gomega.BeTrue(),
			"the reinvocation must come after the first round")
	})

	ginkgo.It("does not reinvoke an IfNeeded webhook when no later webhook changed the object", func(ctx ginkgo.SpecContext) {
		r, err := f.RegisterMutating(ctx, "mutate",
			harness.Hook{Name: "changes", ReinvocationPolicy: ifNeeded, Behaviour: patch(setData("changed", "true"))},
			harness.Hook{Name: "observes", ReinvocationPolicy: ifNeeded, Behaviour: allow()},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		got := create(ctx, r, "changes", "observes")
		gomega.Expect(got["changes"]).To(gomega.HaveLen(1), "nothing after it changed the object, so it must not be reinvoked")
		gomega.Expect(got["observes"]).To(gomega.HaveLen(1), "no webhook after it changed anything, so it must not be reinvoked")
	})

	ginkgo.It("never reinvokes a Never webhook", func(ctx ginkgo.SpecContext) {
		r, err := f.RegisterMutating(ctx, "mutate",
			harness.Hook{Name: "never", ReinvocationPolicy: never,
				Behaviour: patch(fakewebhook.PatchOperation{Op: "copy", From: "/data/ping", Path: "/data/copied"})},
			harness.Hook{Name: "changes", ReinvocationPolicy: never, Behaviour: patch(setData("ping", "changed by the later webhook"))},
			// An IfNeeded hook after them makes sure a reinvocation round
			// does happen: it is reinvoked, the Never hook is not.
			harness.Hook{Name: "ifneeded", ReinvocationPolicy: ifNeeded, Behaviour: allow()},
			harness.Hook{Name: "last", ReinvocationPolicy: never, Behaviour: patch(setData("last", "true"))},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		got := create(ctx, r, "never", "changes", "ifneeded", "last")
		gomega.Expect(got["ifneeded"]).To(gomega.HaveLen(2), "the IfNeeded webhook must be reinvoked: a later webhook changed the object")
		gomega.Expect(got["never"]).To(gomega.HaveLen(1), "a Never webhook must not be reinvoked, though later webhooks changed the object")
		gomega.Expect(got["changes"]).To(gomega.HaveLen(1))
		gomega.Expect(got["last"]).To(gomega.HaveLen(1))
	})
})
