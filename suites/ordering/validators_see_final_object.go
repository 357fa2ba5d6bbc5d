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

var validatorsSeeFinalObject = spec.Spec{
	ShortName: "ValidatorsSeeFinalObject",
	Suite:     "ordering",
	Description: "Each validating webhook receives the object carrying every mutation, including one made only in the " +
		"reinvocation round, and the stored object is the object the validators saw.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "000 Requirements for extensible admission: object mutations must happen before object validations; " +
		"000 REST flows (create, update): admit.Validate judges the object r.Create / r.Update then persists",
	Manifests: []string{"ordering/configmap.yaml"},
}

// What the two mutating hooks write. The first hook copies data.submitted
// into data.copied; the second, listed after it, then rewrites
// data.submitted. The first hook has reinvocationPolicy IfNeeded, so it runs
// again and data.copied ends up holding the second hook's value: a mutation
// that exists only if the reinvocation round happened, and that validators
// see only if they run after it.
const (
	rewritten = "rewritten by the second mutating webhook"
	marked    = "set by the second mutating webhook"
)

var _ = harness.Describe(validatorsSeeFinalObject, func(f *harness.Framework) {
	register := func(ctx ginkgo.SpecContext) (copyHook, rewriteHook harness.RegisteredHook, validators []harness.RegisteredHook) {
		va, err := f.RegisterValidating(ctx, "validate-a", harness.Hook{Name: "v1", Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		vb, err := f.RegisterValidating(ctx, "validate-b", harness.Hook{Name: "v2", Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		// Both mutating hooks in one configuration: the order within a
		// configuration is the one upstream guarantees.
		m, err := f.RegisterMutating(ctx, "mutate",
			harness.Hook{Name: "copy", ReinvocationPolicy: ifNeeded, Behaviour: patch(
				fakewebhook.PatchOperation{Op: "copy", From: "/data/submitted", Path: "/data/copied"})},
			harness.Hook{Name: "rewrite", ReinvocationPolicy: never, Behaviour: patch(
				setData("submitted", rewritten), setData("marked", marked))},
		)
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the mutating webhooks must be called at all")
		return m.Hooks["copy"], m.Hooks["rewrite"], []harness.RegisteredHook{va.Hooks["v1"], vb.Hooks["v2"]}
	}

	// check asserts the calls of the request carrying nonce and returns the
	// object the first validator saw.
	check := func(ctx ginkgo.SpecContext, nonce string, copyHook, rewriteHook harness.RegisteredHook, validators []harness.RegisteredHook) corev1.ConfigMap {
		all, err := requestCalls(ctx, f, nonce, copyHook.Path, rewriteHook.Path, validators[0].Path, validators[1].Path)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		copies := all.onPath(copyHook.Path)
		gomega.Expect(copies).To(gomega.HaveLen(2), "the IfNeeded hook must be called, then reinvoked once after the later hook changed the object")
		var reinvoked corev1.ConfigMap
		gomega.Expect(copies[1].DecodeObject(&reinvoked)).To(gomega.Succeed())
		gomega.Expect(reinvoked.Data).To(gomega.HaveKeyWithValue("submitted", rewritten),
			"the reinvocation must see the later hook's mutation")
		gomega.Expect(all.onPath(rewriteHook.Path)).To(gomega.HaveLen(1), "the Never hook must be called once")

		var seen []corev1.ConfigMap
		for _, v := range validators {
			calls := all.onPath(v.Path)
			gomega.Expect(calls).To(gomega.HaveLen(1), "validating webhook %s must be called once", v.FullName)
			var obj corev1.ConfigMap
			gomega.Expect(calls[0].DecodeObject(&obj)).To(gomega.Succeed())
			gomega.Expect(obj.Data).To(gomega.And(
				gomega.HaveKeyWithValue("submitted", rewritten),
				gomega.HaveKeyWithValue("marked", marked),
				gomega.HaveKeyWithValue("copied", rewritten),
			), "validating webhook %s must see every mutation, including the reinvocation round's (data.copied)", v.FullName)
			seen = append(seen, obj)
		}
		gomega.Expect(seen[1].Data).To(gomega.Equal(seen[0].Data), "both validators must see the same object")
		return seen[0]
	}

	// sameObject asserts that stored is what the validators saw, except the
	// fields the apiserver sets while persisting.
	sameObject := func(stored *corev1.ConfigMap, validated corev1.ConfigMap) {
		gomega.Expect(stored.Data).To(gomega.Equal(validated.Data), "the stored data must be what validators saw")
		gomega.Expect(stored.Labels).To(gomega.Equal(validated.Labels), "the stored labels must be what validators saw")
		gomega.Expect(stored.Annotations).To(gomega.Equal(validated.Annotations), "the stored annotations must be what validators saw")
		gomega.Expect(stored.UID).To(gomega.Equal(validated.UID), "the stored uid must be the one validators saw")
		gomega.Expect(stored.CreationTimestamp.Equal(&validated.CreationTimestamp)).To(gomega.BeTrue(),
			"the stored creationTimestamp %s must be the one validators saw, %s", stored.CreationTimestamp, validated.CreationTimestamp)
	}

	ginkgo.It("on create", func(ctx ginkgo.SpecContext) {
		copyHook, rewriteHook, validators := register(ctx)
		nonce := newNonce()
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		created, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		validated := check(ctx, nonce, copyHook, rewriteHook, validators)
		sameObject(created, validated)
		stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		sameObject(stored, validated)
	})

	ginkgo.It("on update", func(ctx ginkgo.SpecContext) {
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, "set-up")).To(gomega.Succeed())
		current, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		copyHook, rewriteHook, validators := register(ctx)

		nonce := newNonce()
		current.Annotations[requestAnnotation] = nonce
		current.Data["submitted"] = "updated by the client"
		updated, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Update(ctx, current, metav1.UpdateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())

		validated := check(ctx, nonce, copyHook, rewriteHook, validators)
		sameObject(updated, validated)
		stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		sameObject(stored, validated)
	})
})
