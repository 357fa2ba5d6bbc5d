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

var deleteReachesValidating = spec.Spec{
	ShortName: "DeleteReachesValidatingWithOldObject",
	Suite:     "ordering",
	Description: "DELETE and DELETE collection reach validating admission once per deleted object, with that object as " +
		"oldObject and no object; kube-apiserver also calls mutating admission there, with the same oldObject, first.",
	Features: []features.Name{features.MutatingWebhook, features.ValidatingWebhook},
	Profile:  spec.Core,
	Seed: "000 REST flows, Delete and DeleteCollection, proposed behaviour: r.Get; r.BeforeDelete; admit.Validate " +
		"(with the object being deleted); r.Delete",
	Manifests: []string{"ordering/configmap.yaml"},
}

// Seed steps checked: the proposed delete flows (r.Get; r.BeforeDelete;
// admit.Validate with the object; r.Delete). kube-apiserver 1.36 goes further
// than the seed: it runs the whole chain, mutating then validating, inside the
// registry's delete after reading the object
// (rest.AdmissionToValidateObjectDeleteFunc), both with the stored object as
// oldObject and no object; the case asserts that. For a DELETE collection
// the AdmissionReview's name is empty (one set of attributes serves the whole
// collection), so only the oldObject tells the calls apart; the case does
// not assert the name.
var _ = harness.Describe(deleteReachesValidating, func(f *harness.Framework) {
	// register hooks that see only deletes of configmaps.
	register := func(ctx ginkgo.SpecContext) (mutating, validating harness.RegisteredHook) {
		deletes := rule("", ops(opDelete), "configmaps")
		v, err := f.RegisterValidating(ctx, "validate", harness.Hook{Name: "after", Rules: deletes, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		m, err := f.RegisterMutating(ctx, "mutate", harness.Hook{Name: "before", Rules: deletes, Behaviour: allow()})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return m.Hooks["before"], v.Hooks["after"]
	}
	// create stores a subject ConfigMap called name whose annotation is
	// nonce, so the calls its deletion causes can be found by nonce.
	create := func(ctx ginkgo.SpecContext, name, nonce string) *corev1.ConfigMap {
		var cm corev1.ConfigMap
		gomega.Expect(fixture(f, "ordering/configmap.yaml", &cm, nonce)).To(gomega.Succeed())
		cm.Name = name
		stored, err := f.Client.CoreV1().ConfigMaps(f.Namespace).Create(ctx, &cm, metav1.CreateOptions{})
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return stored
	}
	// checkDeleteCalls asserts the admission calls caused by deleting stored.
	checkDeleteCalls := func(ctx ginkgo.SpecContext, stored *corev1.ConfigMap, mutating, validating harness.RegisteredHook) {
		nonce := stored.Annotations[requestAnnotation]
		all, err := requestCalls(ctx, f, nonce, mutating.Path, validating.Path)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		vc, mc := all.onPath(validating.Path), all.onPath(mutating.Path)
		gomega.Expect(vc).To(gomega.HaveLen(1), "validating admission must be called once for deleting %s", stored.Name)
		gomega.Expect(mc).To(gomega.HaveLen(1), "mutating admission must be called once for deleting %s", stored.Name)
		for _, c := range []fakewebhook.Call{mc[0], vc[0]} {
			gomega.Expect(c.Operation).To(gomega.Equal("DELETE"))
			gomega.Expect(string(c.Object)).To(gomega.Or(gomega.BeEmpty(), gomega.Equal("null")), "a DELETE carries no object")
			var old corev1.ConfigMap
			gomega.Expect(c.DecodeOldObject(&old)).To(gomega.Succeed(), "%s admission must get the object being deleted as oldObject", c.Phase)
			gomega.Expect(old.UID).To(gomega.Equal(stored.UID), "%s admission's oldObject must be the stored object", c.Phase)
			gomega.Expect(old.Data).To(gomega.Equal(stored.Data), "%s admission's oldObject must be the stored object", c.Phase)
		}
		gomega.Expect(mc[0].RespondedAt.Before(vc[0].ReceivedAt)).To(gomega.BeTrue(), "mutating admission must finish before validating admission starts")
	}

	ginkgo.It("on DELETE", func(ctx ginkgo.SpecContext) {
		stored := create(ctx, "subject", newNonce())
		mutating, validating := register(ctx)
		gomega.Expect(f.Client.CoreV1().ConfigMaps(f.Namespace).Delete(ctx, stored.Name, metav1.DeleteOptions{})).To(gomega.Succeed())
		checkDeleteCalls(ctx, stored, mutating, validating)
	})

	ginkgo.It("on DELETE collection, once per object", func(ctx ginkgo.SpecContext) {
		var stored []*corev1.ConfigMap
		for _, name := range []string{"subject-1", "subject-2", "subject-3"} {
			stored = append(stored, create(ctx, name, newNonce()))
		}
		mutating, validating := register(ctx)
		gomega.Expect(f.Client.CoreV1().ConfigMaps(f.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{},
			metav1.ListOptions{LabelSelector: subjectLabel + "=true"})).To(gomega.Succeed())
		for _, cm := range stored {
			checkDeleteCalls(ctx, cm, mutating, validating)
		}
	})
})
